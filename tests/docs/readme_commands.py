#!/usr/bin/python3
"""Runs every `$ command` of the given Markdown files as written, as a new user would after
`make demo` and `export PATH="$PWD/build/bin:$PATH"` in a fresh clone (issue 15).

In each fenced block, a line starting with "$ " is a command (a trailing backslash continues it);
the lines after it, up to the next command, are what the page shows it printing. A command whose
shown output starts with "skograph " is a bad-input example: it must exit with status 2 and print
exactly that line on stderr. Any other command must exit with status 0, and what the page shows
must be a faithful excerpt of what it prints (stdout, then stderr): runs of lines separated by
"..." lines, each run printed as consecutive lines, in order, from the top unless the block starts
with "...", to the bottom unless it ends with one (issue 29: a page that showed only the first
line went out of date below it). A shown line ending in the marker "  # varies" (a timing) compares
with its numbers masked, and numbers at roundoff level (1e-9 and below) compare as equal; the
pages say so where they use the marker.

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

ROUNDOFF = re.compile(r"-?\d+(\.\d+)?e-(1\d|\d\d+|9)\b")
# An exact zero printed where rounding could leave 1e-16 (a rotation's off-diagonal entry): the
# same '~0', so that a change of summation order does not fail a page.
EXACT_ZERO = re.compile(r"(?<![\w.~-])-?0(?![\w.])")
NUMBER = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")


VARIES = "  # varies"


def normalized(line):
    """A line as compared: trailing blanks dropped, roundoff-level numbers (1e-9 and below, and
    exact zeros) as '~0'."""
    return EXACT_ZERO.sub("~0", ROUNDOFF.sub("~0", line.rstrip()))


def matches(shown, printed):
    """Whether a printed line is what the page shows: the same, or for a shown line marked
    VARIES the same but for its numbers (roundoff-level ones included)."""
    if shown.endswith(VARIES):
        mask = lambda line: NUMBER.sub("#", line.replace("~0", "0"))
        return mask(shown[:-len(VARIES)].rstrip()) == mask(printed)
    return shown == printed


def excerpt_problem(shown, printed):
    """Why the shown lines are not a faithful excerpt of the printed ones, or None. The shown
    output is runs of lines separated by "..." lines (an elision); each run must be printed as
    consecutive lines, the runs in order, the first at the top unless the shown output starts
    with "...", the last at the bottom unless it ends with one."""
    while printed and not printed[-1].strip():
        printed = printed[:-1]
    while shown and not shown[-1].strip():
        shown = shown[:-1]
    if not shown:
        return None  # the page shows no output
    printed = [normalized(line) for line in printed]
    runs, run = [], []
    for line in shown:
        if line.strip() == "...":
            runs.append(run)
            run = []
        else:
            run.append(line.rstrip() if line.rstrip().endswith(VARIES) else normalized(line))
    runs.append(run)
    position = 0
    for index, run in enumerate(runs):
        if not run:
            continue
        first, last = index == 0, index == len(runs) - 1
        starts = range(position, len(printed) - len(run) + 1)
        if last:  # the bottom run ends the output
            starts = [len(printed) - len(run)] if len(printed) - len(run) >= position else []
        elif first:
            starts = [0] if len(printed) >= len(run) else []
        found = next((start for start in starts
                      if all(matches(a, b) for a, b in zip(run, printed[start:start + len(run)]))),
                     -1)
        if first and last and found != 0:
            found = -1
        if found < 0:
            first_missing = next((line for line in run
                                  if not any(matches(line, p) for p in printed[position:])), None)
            if first_missing:
                return "does not print, as shown: " + first_missing
            if last and not first:
                return "prints more after: " + run[-1] + " (end the block with ...)"
            return ("does not print, as shown: " + run[0] +
                    " (lines missing between the shown ones, or more printed: mark them ...)")
        position = found + len(run)
    return None


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
            while shown and not shown[0].strip():
                shown = shown[1:]
            if shown and re.match(r"skograph [a-z]+: ", shown[0]):
                if run.returncode != 2 or run.stderr != shown[0] + "\n" or run.stdout:
                    failures.append(f"{where}\n  expected status 2 and: {shown[0]}\n"
                                    f"  got status {run.returncode}: {run.stderr.strip()}")
                continue
            if run.returncode != 0:
                failures.append(f"{where}\n  status {run.returncode}: {run.stderr.strip()}")
                continue
            problem = excerpt_problem(shown, (run.stdout + run.stderr).split("\n"))
            if problem:
                failures.append(f"{where}\n  {problem}")
    for failure in failures:
        print(failure)
    print(f"{count} commands, {len(failures)} failing")
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
