#!/usr/bin/python3
"""Runs every code block of the given Markdown files as printed, as a new user would after
`make demo` and `export PATH="$PWD/build/bin:$PATH"` in a fresh clone: the README's tour and the
reference pages in docs/ stay true to the program and the Python module.

The blocks run in WORK_DIR (a scratch folder with examples/ and build/bin, build/python linked
into it, and TMPDIR inside it), never in the checkout, so nothing is left behind there. Each
fenced block is one of:

- commands: a block with lines starting with "$ " (a trailing backslash continues one); the lines
  after each, up to the next command, are what the page shows it printing. Each runs with
  /bin/sh -c, build/bin first on PATH. A command whose shown output starts with "skograph " is a
  bad-input example: it must exit with status 2 and print exactly that line on stderr. Any other
  command must exit with status 0, and what the page shows must be a faithful excerpt of what it
  prints (stdout, then stderr): runs of lines separated by "..." lines, each run printed as
  consecutive lines, in order, from the top unless the block starts with "...", to the bottom
  unless it ends with one (a page that showed only the first line would go out of date below
  it). A shown line ending in the marker "  # varies" (a timing) compares with its numbers
  masked, and numbers at roundoff level (1e-9 and below) compare as equal; the pages say so where
  they use the marker.
- a shell script: a ```sh block without "$ " lines runs as one /bin/sh -e script and must exit
  with status 0 (such blocks show no output).
- Python: the ```python blocks of a page run in order in one /usr/bin/python3 session (the module
  on PYTHONPATH), as a reader working down the page would: a block may use the names an earlier
  block of its page defined. Each must finish without an exception.
- anything else (a usage line, a file format, YAML, JSON, XML, DOT, CMake or C++ fragments) is
  not a program and is only counted.

A block with a "# not run" comment (an install, a minutes-long build, the peers' benchmarks) is
skipped; the test names and counts the blocks it skipped.

usage: readme_commands.py SOURCE_DIR BINARY_DIR WORK_DIR [--python PYTHON MODULE_DIR] FILE.md...
(without --python, the Python blocks are counted as skipped: no module was built)
"""
import json
import os
import re
import shutil
import subprocess
import sys


FENCE = "```"
NOT_RUN = re.compile(r"#\s*not run\b")
SHELLS = {"sh", "bash", "shell", "console"}


def blocks(path):
    """(line number of the opening fence, language, lines) of every fenced block, and the line
    number of a fence left open at the end of the file (or None)."""
    found, current = [], None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        if line.startswith(FENCE):
            if current is None:
                words = line[len(FENCE):].split()
                current = (number, words[0].lower() if words else "", [])
            else:
                found.append(current)
                current = None
        elif current is not None:
            current[2].append(line)
    return found, current[0] if current else None


def commands(number, lines):
    """(line number, command, shown output lines) of every `$ ` line of a block that opens at
    line `number`."""
    found, current = [], None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            start, text = number + 1 + i, line[2:]
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text = text[:-1] + " " + lines[i].strip()
            current = (start, text, [])
            found.append(current)
        elif current is not None:
            current[2].append(line)
        i += 1
    return found


# The Python blocks of one page, in order, in one interpreter: each block's code compiled with
# the page's line numbers (a traceback names the page's line), its problem or None written to
# the results file.
PYTHON_SESSION = r"""
import json, sys, traceback
page, results = sys.argv[1], sys.argv[2]
namespace = {"__name__": "__main__"}
problems = []
for number, code in json.load(sys.stdin):
    try:
        exec(compile("\n" * number + code, page, "exec"), namespace)
        problems.append(None)
    except SystemExit as stop:
        problems.append(None if stop.code in (None, 0) else f"SystemExit({stop.code!r})")
    except BaseException:
        problems.append(traceback.format_exc().strip())
with open(results, "w") as f:
    json.dump(problems, f)
"""


def run_python(python, page, python_blocks, work, env):
    """Runs the Python blocks [(opening line, code)] of a page in one session: a problem (or
    None) per block."""
    results = os.path.join(work, "tmp", "python_results.json")
    if os.path.exists(results):
        os.remove(results)
    run = subprocess.run([python, "-c", PYTHON_SESSION, page, results], cwd=work, env=env,
                         input=json.dumps(python_blocks), capture_output=True, text=True,
                         errors="replace", timeout=600)
    if not os.path.exists(results):
        problem = f"the Python session ended with status {run.returncode}: {run.stderr.strip()}"
        return [problem] * len(python_blocks)
    with open(results, encoding="utf-8") as f:
        return json.load(f)


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


def check_command(where, command, shown, work, env):
    """The problem of one `$ ` command against what the page shows it printing, or None."""
    run = subprocess.run(["/bin/sh", "-c", command], cwd=work, env=env, capture_output=True,
                         text=True, errors="replace", timeout=600)
    while shown and not shown[0].strip():
        shown = shown[1:]
    if shown and re.match(r"skograph [a-z]+: ", shown[0]):
        if run.returncode != 2 or run.stderr != shown[0] + "\n" or run.stdout:
            return (f"{where}\n  expected status 2 and: {shown[0]}\n"
                    f"  got status {run.returncode}: {run.stderr.strip()}")
        return None
    if run.returncode != 0:
        return f"{where}\n  status {run.returncode}: {run.stderr.strip()}"
    problem = excerpt_problem(shown, (run.stdout + run.stderr).split("\n"))
    return f"{where}\n  {problem}" if problem else None


def main():
    arguments = sys.argv[1:]
    python = module_dir = None
    if "--python" in arguments:
        at = arguments.index("--python")
        python, module_dir = arguments[at + 1], arguments[at + 2]
        del arguments[at:at + 3]
    source, binary, work, pages = arguments[0], arguments[1], arguments[2], arguments[3:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "build"))
    os.makedirs(os.path.join(work, "tmp"))
    os.symlink(os.path.join(source, "examples"), os.path.join(work, "examples"))
    os.symlink(binary, os.path.join(work, "build", "bin"))
    if module_dir:
        os.symlink(module_dir, os.path.join(work, "build", "python"))
    env = dict(os.environ, PATH=binary + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C",
               TMPDIR=os.path.join(work, "tmp"))
    env.pop("PYTHONPATH", None)  # the pages set it where they use it
    python_env = dict(env, PYTHONPATH=module_dir or "")
    failures, skipped = [], []
    ran = {"commands": 0, "command blocks": 0, "shell scripts": 0, "Python blocks": 0}
    not_programs = 0
    for page in pages:
        name = os.path.relpath(page, source)
        found, unclosed = blocks(page)
        if unclosed:
            failures.append(f"{name}:{unclosed}: the block opened here is never closed")
        python_blocks = []
        for number, language, lines in found:
            where = f"{name}:{number}"
            listed = commands(number, lines)
            if any(NOT_RUN.search(line) for line in lines):
                skipped.append(f"{where} ({language or ('commands' if listed else 'text')}): # not run")
            elif listed:
                ran["command blocks"] += 1
                for start, command, shown in listed:
                    ran["commands"] += 1
                    problem = check_command(f"{name}:{start}: $ {command}", command, shown,
                                            work, env)
                    if problem:
                        failures.append(problem)
            elif language in SHELLS and not python and any("python" in line for line in lines):
                skipped.append(f"{where} ({language}): no Python module built")
            elif language in SHELLS:
                ran["shell scripts"] += 1
                run = subprocess.run(["/bin/sh", "-e", "-c", "\n".join(lines)], cwd=work,
                                     env=env, capture_output=True, text=True, errors="replace",
                                     timeout=600)
                if run.returncode != 0:
                    failures.append(f"{where}: ```{language} block\n  status {run.returncode}: "
                                    f"{(run.stdout + run.stderr).strip()}")
            elif language == "python":
                if python:
                    python_blocks.append((number, "\n".join(lines)))
                else:
                    skipped.append(f"{where} (python): no Python module built")
            else:
                not_programs += 1
        if python_blocks:
            ran["Python blocks"] += len(python_blocks)
            problems = run_python(python, os.path.abspath(page), python_blocks, work, python_env)
            for (number, _), problem in zip(python_blocks, problems):
                if problem:
                    failures.append(f"{name}:{number}: ```python block\n  " +
                                    problem.replace("\n", "\n  "))
    for failure in failures:
        print(failure)
    for block in skipped:
        print(f"skipped: {block}")
    blocks_run = ran["command blocks"] + ran["shell scripts"] + ran["Python blocks"]
    print(f"{blocks_run} blocks run ({ran['command blocks']} with {ran['commands']} commands, "
          f"{ran['shell scripts']} shell scripts, {ran['Python blocks']} Python blocks), "
          f"{len(skipped)} skipped, {not_programs} not programs (formats, data, C++ fragments); "
          f"{len(failures)} failing")
    return 1 if failures or blocks_run == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
