#!/usr/bin/python3
"""The README's Python block is examples/python/quick_start.py as printed, its `#!` line left out:
the README's snippet is the file the tests run (readme_commands.py runs the block itself).

usage: readme_python_block.py SOURCE_DIR
"""
import os
import re
import sys


def main():
    source = sys.argv[1]
    with open(os.path.join(source, "README.md"), encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    with open(os.path.join(source, "examples", "python", "quick_start.py"), encoding="utf-8") as f:
        text = f.read()
    code = text.split("\n", 1)[1] if text.startswith("#!") else text
    if code not in blocks:
        print("README.md's Python block differs from examples/python/quick_start.py without its "
              "#! line")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
