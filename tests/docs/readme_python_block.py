#!/usr/bin/python3
"""The README's Python block is examples/python/quick_start.py without its docstring (issue 29:
the README's snippet runs as shown; the tests run the file).

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
    code = text[text.index('"""', 3) + 3:].lstrip("\n")
    if code not in blocks:
        print("README.md's Python block differs from examples/python/quick_start.py's code")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
