#!/usr/bin/python3
"""`skograph analyze`'s index.html in a real browser (`make test-browser`, not part of
`make test`): Debian's chromium, headless, loads the page of a few models from the file system.
The page must run its script to the end (the body gets data-ready="1") with no message on the
console, and its screenshot must show a page (not blank: many non-white pixels and colours).

usage: html_report_browser.py SKOGRAPH SOURCE_DIR WORK_DIR [CHROMIUM]
"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

MODELS = [("examples/models/fourbar_chain.yaml", ["--state", "examples/models/fourbar_chain_state.json"]),
          ("examples/models/humanoid.yaml", []),
          ("examples/models/stewart_platform.yaml", [])]


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG, by its definition
    (zlib stream of filtered scanlines; filters None, Sub, Up, Average, Paeth)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position, idat, width = 8, b"", 0
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError(f"PNG depth {depth} colour type {colour}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + predictor) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def main():
    program, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
    chromium = sys.argv[4] if len(sys.argv) > 4 else "chromium"
    shutil.rmtree(work, ignore_errors=True)
    # WebGL (the 3D view in its iframe) through SwiftShader, as make test-browser's other pages.
    base = [chromium, "--headless=new", "--no-sandbox", "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader", "--hide-scrollbars",
            "--enable-logging=stderr", "--v=0", "--window-size=1280,1600"]
    failures = []
    for model, options in MODELS:
        out = os.path.abspath(os.path.join(work, os.path.basename(model).replace(".", "_")))
        run = subprocess.run([program, "analyze", model, "--out", out] + options, cwd=source,
                             capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"{model}: analyze failed: {run.stderr}")
            continue
        page = "file://" + os.path.join(out, "index.html")
        dom = subprocess.run(base + ["--dump-dom", page], capture_output=True, text=True,
                             timeout=300)
        console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
        if console:
            failures.append(f"{model}: console: {console[:3]}")
        if '<body data-ready="1"' not in dom.stdout:
            failures.append(f"{model}: the page's script did not run to its end")
        shot = os.path.join(out, "screenshot.png")
        subprocess.run(base + [f"--screenshot={shot}", page], capture_output=True, text=True,
                       timeout=300)
        if not os.path.exists(shot):
            failures.append(f"{model}: no screenshot")
            continue
        width, height, channels, rows = png_pixels(shot)
        inked, colours = 0, set()
        for y in range(0, height, 4):
            row = rows[y]
            for x in range(0, width, 4):
                pixel = row[x * channels:x * channels + 3]
                colours.add(pixel)
                inked += pixel != b"\xff\xff\xff"
        share = inked / ((height // 4) * (width // 4))
        print(f"{model}: {width} x {height} screenshot, {100 * share:.1f} % inked, "
              f"{len(colours)} colours: {shot}")
        if share < 0.02 or len(colours) < 8:
            failures.append(f"{model}: the screenshot looks blank ({share:.3f} inked)")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
