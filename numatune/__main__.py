import sys

try:
    from numatune.cli import main
except KeyboardInterrupt:
    # Ctrl-C before numatune even loaded: nothing ran.
    sys.stderr.write("numatune: interrupted\n")
    sys.exit(130)

sys.exit(main())
