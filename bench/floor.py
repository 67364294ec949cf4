"""The floor: open and read, list, or readlink exactly the paths in OPS_FILE,
and nothing else. A line is "<op>\t<path>": R read a file whole, L list a
directory, K read a symlink. What fails (a path numatune probed and did not
find) fails here too, at the same cost.

    python bench/floor.py OPS_FILE
"""
import os
import sys


def main(ops_file):
    with open(ops_file, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            op, path = line[0], line[2:-1]
            try:
                if op == "R":
                    with open(path, "rb") as g:
                        g.read()
                elif op == "L":
                    os.listdir(path)
                elif op == "K":
                    os.readlink(path)
            except OSError:
                pass


if __name__ == "__main__":
    main(sys.argv[1])
