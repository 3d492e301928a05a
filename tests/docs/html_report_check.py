#!/usr/bin/python3
"""`skograph analyze`'s index.html as an HTML parser reads it (part of `make test`):
balanced elements, nothing fetched from elsewhere (no external scripts, styles, fonts or images),
every picture of report.json on the page (SVG inline, PNG as a data URI, DOT linked), the report's
tables (numbering with every body, serial segments, sparsity; the embedding for closed chains).
The page in a real browser: tests/browser/html_report_browser.py (`make test-browser`).

usage: html_report_check.py SKOGRAPH SOURCE_DIR WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser

VOID = {"meta", "img", "br", "hr", "input", "link", "area", "base", "col", "embed", "source",
        "track", "wbr"}
MODELS = [("examples/models/fourbar.yaml", []),
          ("examples/models/fourbar_chain.yaml", ["--state", "examples/models/fourbar_chain_state.json"]),
          ("examples/models/humanoid.yaml", []),
          ("examples/graphs/two_arms_holding_a_box.dot", [])]


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems = [], []
        self.svg_roots, self.png_images, self.links, self.headings = 0, [], [], []
        self.scripts_with_src, self.external = 0, []
        self.text, self._in_heading = [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg" and "svg" not in self.stack:
            self.svg_roots += 1
        for key in ("src", "href"):
            value = attrs.get(key) or ""
            if value.startswith(("http:", "https:", "//", "ftp:")):
                self.external.append(value)
        if tag == "script" and "src" in attrs:
            self.scripts_with_src += 1
        if tag == "link":
            self.external.append("<link>")
        if tag == "img":
            self.png_images.append(attrs.get("src", ""))
        if tag == "a":
            self.links.append(attrs.get("href", ""))
        if tag == "h2":
            self._in_heading = True
            self.headings.append("")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        # <tag/> (SVG elements): opened and closed at once.
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()
        if tag == "h2":
            self._in_heading = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_heading:
            self.headings[-1] += data


def main():
    program, source, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    failures = []
    for model, options in MODELS:
        out = os.path.join(work, os.path.basename(model).replace(".", "_"))
        run = subprocess.run([program, "analyze", model, "--out", out] + options, cwd=source,
                             capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"{model}: analyze failed: {run.stderr}")
            continue
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            html = f.read()
        page = Page()
        page.feed(html)
        page.close()
        where = f"{model}: index.html"
        if not html.startswith("<!DOCTYPE html>"):
            failures.append(f"{where}: no <!DOCTYPE html>")
        if page.problems or page.stack:
            failures.append(f"{where}: unbalanced: {page.problems[:3]} open {page.stack}")
        if page.external or page.scripts_with_src:
            failures.append(f"{where}: fetches from elsewhere: {page.external}")
        pictures = report["pictures"]
        svgs = [p for p in pictures if p.endswith(".svg")]
        pngs = [p for p in pictures if p.endswith(".png")]
        dots = [p for p in pictures if p.endswith(".dot")]
        if page.svg_roots != len(svgs):
            failures.append(f"{where}: {page.svg_roots} inline SVGs for {svgs}")
        if len(page.png_images) != len(pngs) or not all(
                src.startswith("data:image/png;base64,iVBORw0KGgo") for src in page.png_images):
            failures.append(f"{where}: PNG images {len(page.png_images)} for {pngs}")
        for picture in pictures:
            if picture not in page.links:
                failures.append(f"{where}: no link to {picture}")
        for dot in dots:
            if not os.path.exists(os.path.join(out, dot)):
                failures.append(f"{where}: links the missing {dot}")
        wanted = ["numbering", "serial segments", "sparsity"]
        if report["embedding"] is not None:
            wanted.append("embedding")
        for heading in wanted:
            if not any(h.startswith(heading) for h in page.headings):
                failures.append(f"{where}: no table '{heading}' in {page.headings}")
        text = "".join(page.text)
        for name, number in report["graph"]["strictly_canonical"].items():
            if f"{name}: canonical {report['graph']['canonical'][name]}, strictly canonical {number}" \
                    not in text:
                failures.append(f"{where}: numbering table lacks {name}")
    for failure in failures:
        print(failure)
    print(f"{len(MODELS)} pages checked, {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
