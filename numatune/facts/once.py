"""Facts several families read in the same run (the CPU topology for the
cpu and tuned families and the host summary, the C-states for cpu and
tuned), read once: kept on the Root until ``engine.gather`` starts the next
run (so the re-plan after apply reads the host anew), and handed out as
copies so that no family changes what another one sees. Facts are plain
data (dicts, lists, strings, numbers), which marshal copies in C, ten times
faster than copy.deepcopy (480 CPUs' topology, handed out 80 times a plan);
anything marshal does not know is deep-copied as before."""
import marshal


def read_once(root, key, fn, *args):
    cache = getattr(root, "_read_once", None)
    if cache is None:
        cache = root._read_once = {}
    if key not in cache:
        cache[key] = fn(*args)
    try:
        return marshal.loads(marshal.dumps(cache[key]))
    except ValueError:
        import copy     # here: facts are plain data, which marshal copies
        return copy.deepcopy(cache[key])


def forget(root):
    root._read_once = {}
