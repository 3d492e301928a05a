#!/usr/bin/python3
"""Every diagram and spy plot of the example models and the published parallel robots can be read:
no label overlaps another label, no edge runs through a label, and no label straddles an aggregate's
outline; in the spy plots every label stands clear of the tick marks.

usage: picture_labels_check.py SKOGRAPH SOURCE_DIR WORK_DIR

The pictures are drawn by `skograph render` as SVG and read back. Graphviz's SVG gives each text's
anchor, baseline and font size; its extent comes from an independent source, the DejaVu Sans
font's own metrics read by Pillow (the font Graphviz lays out with), widened by 3 % for the
difference between Pillow's advance widths and Pango's. cairo's SVG draws each glyph as a path, so
the spy plots' labels are measured by their ink. The published parallel robots are read from
../shared/robots when it exists (skipped, and said, otherwise).
"""
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

from PIL import ImageFont

SVG = "{http://www.w3.org/2000/svg}"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
FONT_FILES = {
    False: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    True: "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
}
REFERENCE_SIZE = 100  # the font is measured at 100 px and scaled
WIDTH_MARGIN = 1.03
ASCENT, DESCENT = 0.76, 0.24  # DejaVu Sans' cap height and descender, in em
TICK_CLEARANCE = 3.0  # px between a spy plot's label and any tick mark
# Why a model may have no picture of a kind (any other refusal fails the check).
PICTURES_A_MODEL_HAS_NOT = ("--matrix M_R needs a MODEL with loops or couplings",
                            "the embedded model of a closed chain with flexible links is not built")
_fonts = {}


def text_box(x, y, size, anchor, text, bold):
    """The box a Graphviz text covers: (left, top, right, bottom) in the SVG's units."""
    if bold not in _fonts:
        _fonts[bold] = ImageFont.truetype(FONT_FILES[bold], REFERENCE_SIZE)
    width = _fonts[bold].getlength(text) * size / REFERENCE_SIZE * WIDTH_MARGIN
    left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
    return (left, y - ASCENT * size, left + width, y + DESCENT * size)


def numbers(text):
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text)]


def bezier_points(d):
    """Points along an SVG path of cubic Bezier pieces (Graphviz's "M x,y C ..."), 40 per piece."""
    values = numbers(d)
    points = list(zip(values[0::2], values[1::2]))
    out = [points[0]] if points else []
    for i in range(0, len(points) - 3, 3):
        p0, p1, p2, p3 = points[i:i + 4]
        for k in range(1, 41):
            t = k / 40
            w = ((1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3)
            out.append((sum(w[j] * (p0, p1, p2, p3)[j][0] for j in range(4)),
                        sum(w[j] * (p0, p1, p2, p3)[j][1] for j in range(4))))
    return out


def distance(point, box):
    dx = max(box[0] - point[0], 0, point[0] - box[2])
    dy = max(box[1] - point[1], 0, point[1] - box[3])
    return math.hypot(dx, dy)


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(a, outer):
    return outer[0] <= a[0] and a[2] <= outer[2] and outer[1] <= a[1] and a[3] <= outer[3]


def graphviz_problems(path):
    """Label/label overlaps, edges through labels, labels across a cluster's outline."""
    root = ET.parse(path).getroot()
    labels, strokes, clusters = [], [], []
    for group in root.iter(SVG + "g"):
        kind = group.get("class")
        title = (group.findtext(SVG + "title") or "").strip()
        for text in group.findall(SVG + "text"):
            if not text.text:
                continue
            box = text_box(float(text.get("x")), float(text.get("y")), float(text.get("font-size")),
                           text.get("text-anchor", "start"), text.text,
                           text.get("font-weight") == "bold")
            labels.append((text.text, box, kind))
        if kind == "edge":
            for shape in group.findall(SVG + "path") + group.findall(SVG + "polygon"):
                width = float(shape.get("stroke-width", "1"))
                points = (bezier_points(shape.get("d")) if shape.tag == SVG + "path" else
                          list(zip(numbers(shape.get("points"))[0::2],
                                   numbers(shape.get("points"))[1::2])))
                strokes.append((title, points, width))
        if kind == "cluster":
            for shape in group.findall(SVG + "path") + group.findall(SVG + "polygon"):
                values = numbers(shape.get("d") or shape.get("points"))
                xs, ys = values[0::2], values[1::2]
                clusters.append((title, (min(xs), min(ys), max(xs), max(ys))))
    problems = []
    for i, (text_a, box_a, _) in enumerate(labels):
        for text_b, box_b, _ in labels[i + 1:]:
            if overlap(box_a, box_b):
                problems.append(f"labels '{text_a}' and '{text_b}' overlap")
    for title, points, width in strokes:
        for text, box, _ in labels:
            gap = min(distance(p, box) for p in points)
            if gap < width / 2:
                problems.append(f"edge {title} runs through label '{text}' ({gap:.2f} apart)")
    for title, outline in clusters:
        for text, box, kind in labels:
            if kind == "cluster":
                continue
            if not inside(box, outline) and overlap(box, outline):
                problems.append(f"label '{text}' straddles the outline of {title}")
    return problems


def spy_plot_problems(path):
    """Ink boxes of cairo's glyphs grouped into words; overlaps and gaps to the tick marks."""
    root = ET.parse(path).getroot()
    symbols = {}
    for symbol in root.iter(SVG + "symbol"):
        shape = symbol.find(SVG + "path")
        values = numbers(shape.get("d")) if shape is not None else []
        symbols["#" + symbol.get("id")] = (
            (min(values[0::2]), min(values[1::2]), max(values[0::2]), max(values[1::2]))
            if values else None)
    words, current = [], []

    def close_word():
        boxes = [g[2] for g in current if g[2] is not None]
        if boxes:
            words.append(tuple(f(b[i] for b in boxes) for i, f in
                               ((0, min), (1, min), (2, max), (3, max))))

    for use in root.iter(SVG + "use"):
        ink = symbols.get(use.get(XLINK_HREF))
        x, y = float(use.get("x")), float(use.get("y"))
        box = None if ink is None else (ink[0] + x, ink[1] + y, ink[2] + x, ink[3] + y)
        # A word goes on along its baseline (rows) or up its column (turned column labels).
        if current and not ((y == current[-1][1] and 0 < x - current[-1][0] < 15) or
                            (x == current[-1][0] and 0 < current[-1][1] - y < 15)):
            close_word()
            current = []
        current.append((x, y, box))
    close_word()
    ticks = []
    for shape in root.iter(SVG + "path"):
        style = shape.get("style", "")
        if "stroke-width:1;" in style and "rgb(20%,20%,20%)" in style:
            values = numbers(shape.get("d"))
            ticks += [tuple(values[i:i + 4]) for i in range(0, len(values) - 3, 4)]
    problems = []
    for i, word in enumerate(words):
        for other in words[i + 1:]:
            if overlap(word, other):
                problems.append(f"labels at {word[:2]} and {other[:2]} overlap")
        for x0, y0, x1, y1 in ticks:
            gap = min(distance((x0 + (x1 - x0) * k / 20, y0 + (y1 - y0) * k / 20), word)
                      for k in range(21))
            if gap < TICK_CLEARANCE:
                problems.append(f"label at ({word[0]:.1f}, {word[1]:.1f}) {gap:.2f} px from a tick")
    if not ticks or not words:
        problems.append(f"no tick marks ({len(ticks)}) or labels ({len(words)}) found")
    return problems


def models(source):
    """(name, model arguments) of the example models and the published parallel robots."""
    examples = os.path.join(source, "examples", "models")
    for name in sorted(os.listdir(examples)):
        if (name.rsplit(".", 1)[-1] in ("yaml", "xml", "urdf", "sdf") and "state" not in name and
                not name.endswith("_loops.yaml")):
            yield name, [os.path.join(examples, name)]
    robots = os.path.join(source, "..", "shared", "robots", "example-parallel-robots")
    if not os.path.isdir(robots):
        print("../shared/robots is absent: the published parallel robots are skipped")
        return
    # Each folder: its URDF (robot.urdf, or true_talos_2_legs' talos_full_v2.urdf) and the loop
    # file robot.yaml where there is one (kangaroo_like_2leg has none: a tree).
    for name in sorted(os.listdir(robots)):
        folder = os.path.join(robots, name)
        urdf = [f for f in sorted(os.listdir(folder)) if f.endswith(".urdf")]
        loops = os.path.join(folder, "robot.yaml")
        yield name, ([os.path.join(folder, urdf[0])] +
                     (["--loops", loops] if os.path.exists(loops) else []))


def main():
    program, source, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    failures, pictures = [], 0
    for name, arguments in models(source):
        shared = "parallel-robots" in arguments[0]
        jobs = [("--what", kind) for kind in ("digraph", "spanning-tree", "aggregated", "segments")]
        # Spy plots of the examples' matrices (the parallel robots' add nothing the labels test).
        if not shared:
            jobs += [("--what", "sparsity", "--matrix", m) for m in ("M", "L", "E", "A", "M_R")]
        for job in jobs:
            out = os.path.join(work, name.replace(".", "_") + "_" + "_".join(job[1::2]) + ".svg")
            if os.path.exists(out):
                os.remove(out)
            run = subprocess.run([program, "render"] + arguments + list(job) + ["-o", out],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                # A picture the model has not (a tree's M_R): said in one line, and no file.
                if (run.returncode == 2 and not os.path.exists(out) and
                        any(reason in run.stderr for reason in PICTURES_A_MODEL_HAS_NOT)):
                    continue
                failures.append(f"{name} {' '.join(job)}: exit {run.returncode}: {run.stderr}")
                continue
            pictures += 1
            check = spy_plot_problems if "sparsity" in job else graphviz_problems
            problems = check(out)
            picture = os.path.basename(out)
            failures += [f"{picture}: {problem}" for problem in problems]
    print(f"{pictures} pictures read, {len(failures)} problems")
    for failure in failures[:60]:
        print("  " + failure)
    return 1 if failures or pictures == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
