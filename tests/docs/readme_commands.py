#!/usr/bin/python3
"""Runs every `$ command` of the given Markdown files as written, as a new user would after
`make demo` and `export PATH="$PWD/build/bin:$PATH"` in a fresh clone (issue 15).

In each fenced block, a line starting with "$ " is a command (a trailing backslash continues it);
the lines after it, up to the next command, are what the page shows it printing. A command whose
shown output starts with "skograph " is a bad-input example: it must exit with status 2 and print
exactly that line on stderr. Any other command must exit with status 0, and the first shown output
line, unless elided ("..."), must be a line of what it prints.

usage: readme_commands.py SOURCE_DIR BINARY_DIR WORK_DIR FILE.md...
"""
import os
import re
import shutil
import subprocess
import sys


def commands(path):
    """(line number, command, shown output lines) of every `$ ` line in fenced blocks."""
    found, in_block, current = [], False, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_block = not in_block
            current = None
        elif in_block and line.startswith("$ "):
            number, text = i + 1, line[2:]
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text[:-1] + " " + lines[i].strip()
            current = (number, text, [])
            found.append(current)
        elif in_block and current is not None:
            current[2].append(line)
        i += 1
    return found


def main():
    source, binary, work, pages = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "build"))
    os.symlink(os.path.join(source, "examples"), os.path.join(work, "examples"))
    os.symlink(binary, os.path.join(work, "build", "bin"))
    env = dict(os.environ, PATH=binary + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C")
    failures, count = [], 0
    for page in pages:
        name = os.path.relpath(page, source)
        for number, command, shown in commands(page):
            count += 1
            run = subprocess.run(["/bin/sh", "-c", command], cwd=work, env=env,
                                 capture_output=True, text=True, errors="replace", timeout=600)
            where = f"{name}:{number}: $ {command}"
            shown = [s for s in shown if s.strip()]
            if shown and re.match(r"skograph [a-z]+: ", shown[0]):
                if run.returncode != 2 or run.stderr != shown[0] + "\n" or run.stdout:
                    failures.append(f"{where}\n  expected status 2 and: {shown[0]}\n"
                                    f"  got status {run.returncode}: {run.stderr.strip()}")
                continue
            if run.returncode != 0:
                failures.append(f"{where}\n  status {run.returncode}: {run.stderr.strip()}")
                continue
            # The first shown line (numbers further down vary with the machine and the state).
            printed = set(line.rstrip() for line in (run.stdout + run.stderr).split("\n"))
            if shown and "..." not in shown[0] and shown[0].rstrip() not in printed:
                failures.append(f"{where}\n  does not print: {shown[0]}")
    for failure in failures:
        print(failure)
    print(f"{count} commands, {len(failures)} failing")
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
