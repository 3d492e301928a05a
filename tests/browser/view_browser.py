#!/usr/bin/python3
"""`skograph view`'s pages in a real browser (`make test-browser`, not part of `make test`):
Debian's chromium, headless, WebGL through SwiftShader, driven by chromedriver and Selenium.

Each page must load from the file system with no console message and no request but its own, and
run its script to the end (the body gets data-ready="1"); its canvas must not be blank (pixel
variance, read with Pillow); a joint's ball must be drawn at the pixel where the page's camera
puts the link frame that `skograph kinematics --json` computes; moving the time slider of a
trajectory must move it there; the Stewart platform's loop colours must show.

usage: view_browser.py SKOGRAPH SOURCE_DIR WORK_DIR
"""
import io
import json
import os
import shutil
import subprocess
import sys

from PIL import Image, ImageStat
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait


def browser():
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--use-angle=swiftshader",
                 "--enable-unsafe-swiftshader", "--hide-scrollbars", "--window-size=1100,700"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def near(image, x, y, test, radius=3):
    """Whether some pixel within `radius` of (x, y) passes `test`."""
    for dx in range(-radius, radius + 1):
        for dy in range(-radius, radius + 1):
            px, py = int(round(x)) + dx, int(round(y)) + dy
            if 0 <= px < image.width and 0 <= py < image.height and test(image.getpixel((px, py))):
                return True
    return False


def drawn(pixel):
    return sum(pixel[:3]) < 3 * 235  # not the white background


def frame_position(program, source, model, state, frame):
    run = subprocess.run([program, "kinematics", model, "--frames", frame, "--json"] +
                         (["--state", state] if state else []), cwd=source, capture_output=True,
                         text=True, check=True)
    return json.loads(run.stdout)["frames"][frame]["p"]


def check_page(driver, page, failures, name):
    driver.get("file://" + page)
    WebDriverWait(driver, 60).until(
        lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    console = driver.get_log("browser")
    if console:
        failures.append(f"{name}: console: {console[:3]}")
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if url != "file://" + page:
                failures.append(f"{name}: requested {url}")
    shot = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
    variance = sum(ImageStat.Stat(shot.crop((0, 0, shot.width - 280, shot.height - 50))).var)
    print(f"{name}: canvas pixel variance {variance:.0f}")
    if variance < 50:
        failures.append(f"{name}: the canvas looks blank (variance {variance:.1f})")
    return shot


def main():
    program, source, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = []
    driver = browser()
    try:
        # The Stewart platform at a state: its moving platform where kinematics puts it, the
        # loops' colours.
        page = os.path.join(work, "stewart.html")
        state = "examples/models/stewart_platform_state.json"
        subprocess.run([program, "view", "examples/models/stewart_platform.yaml", "--state", state,
                        "--out", page], cwd=source, check=True, capture_output=True)
        shot = check_page(driver, page, failures, "stewart_platform")
        for link in ("upper3", "lower5", "cross2"):
            point = frame_position(program, source, "examples/models/stewart_platform.yaml",
                                   state, link)
            x, y = driver.execute_script("return skographView.pixelOf(arguments[0])", point)
            if not near(shot, x, y, drawn):
                failures.append(f"stewart_platform: nothing drawn at {link}'s frame ({x:.0f}, {y:.0f})")
        reds = sum(1 for p in shot.getdata() if p[0] > 150 and p[1] < 90 and p[2] < 90)
        if reds < 20:
            failures.append(f"stewart_platform: the first loop's colour is missing ({reds} pixels)")
        # The aggregate's box in the diagrams' aggregate colour (#d94801).
        oranges = sum(1 for p in shot.getdata()
                      if abs(p[0] - 0xd9) < 30 and abs(p[1] - 0x48) < 30 and p[2] < 40)
        if oranges < 50:
            failures.append(f"stewart_platform: the aggregate's box is missing ({oranges} pixels)")

        # A trajectory: the slider moves the crank's joint ball.
        page = os.path.join(work, "fourbar.html")
        subprocess.run([program, "view", "examples/models/fourbar.yaml", "--trajectory",
                        "examples/models/fourbar_trajectory.csv", "--out", page], cwd=source,
                       check=True, capture_output=True)
        shot = check_page(driver, page, failures, "fourbar trajectory")
        scene = json.loads(driver.execute_script(
            "return document.getElementById('scene').textContent"))
        last = len(scene["times"]) - 1
        coupler = [link["name"] for link in scene["links"]].index("coupler")
        first_point = scene["poses"][0][coupler][:3]
        last_point = scene["poses"][last][coupler][:3]
        before = driver.execute_script("return skographView.pixelOf(arguments[0])", first_point)
        slider = driver.find_element("id", "frame")
        driver.execute_script("arguments[0].value = arguments[1];"
                              "arguments[0].dispatchEvent(new Event('input'))", slider, last)
        after = driver.execute_script("return skographView.pixelOf(arguments[0])", last_point)
        moved = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
        if abs(before[0] - after[0]) + abs(before[1] - after[1]) < 5:
            failures.append("fourbar: the coupler's frame did not move on screen")
        if not near(shot, *before, drawn) or not near(moved, *after, drawn):
            failures.append(f"fourbar: the coupler's joint is not drawn where its frame is "
                            f"({before} at the first row, {after} at the last)")
        if driver.find_element("id", "time").text != f"t = {scene['times'][last]:.3f} s":
            failures.append("fourbar: the time shown is not the last row's")

        # A tree (no loops, a floating base).
        page = os.path.join(work, "humanoid.html")
        subprocess.run([program, "view", "examples/models/humanoid.yaml", "--out", page],
                       cwd=source, check=True, capture_output=True)
        check_page(driver, page, failures, "humanoid")

        # A tree's sliders: joint2 and joint4 moved in the page put link7 where
        # `skograph kinematics` puts it at that state.
        page = os.path.join(work, "arm7.html")
        subprocess.run([program, "view", "examples/models/arm7.urdf", "--state",
                        "examples/models/arm7_state.json", "--out", page], cwd=source, check=True,
                       capture_output=True)
        check_page(driver, page, failures, "arm7 sliders")
        scene = json.loads(driver.execute_script(
            "return document.getElementById('scene').textContent"))
        q = dict(zip(scene["dof_names"], scene["q"][0]))
        q["joint2"], q["joint4"] = 0.4, -1.2
        for dof in ("joint2", "joint4"):
            driver.execute_script("skographView.setDof(arguments[0], arguments[1])",
                                  scene["dof_names"].index(dof), q[dof])
        moved_state = os.path.join(work, "arm7_moved.json")
        with open(moved_state, "w") as out:
            json.dump({"q": q}, out)
        point = frame_position(program, source, "examples/models/arm7.urdf", moved_state, "link7")
        x, y = driver.execute_script("return skographView.pixelOf(arguments[0])", point)
        shot = Image.open(io.BytesIO(driver.get_screenshot_as_png())).convert("RGB")
        joint_grey = lambda p: abs(p[0] - 0x96) < 30 and abs(p[1] - 0x96) < 30 and abs(p[2] - 0x96) < 30
        if not near(shot, x, y, joint_grey, radius=4):
            failures.append(f"arm7: link7's joint is not at ({x:.0f}, {y:.0f}) after the sliders moved")
        old = frame_position(program, source, "examples/models/arm7.urdf",
                             "examples/models/arm7_state.json", "link7")
        ox, oy = driver.execute_script("return skographView.pixelOf(arguments[0])", old)
        if abs(ox - x) + abs(oy - y) < 10:
            failures.append("arm7: the sliders did not move link7 on screen")

        # Visual geometry: the double pendulum's meshes (STL, OBJ, COLLADA) and shapes in their
        # colours; the brass bob (a sphere) where its link's frame puts it.
        page = os.path.join(work, "double_pendulum.html")
        subprocess.run([program, "view", "examples/models/double_pendulum.urdf", "--out", page],
                       cwd=source, check=True, capture_output=True)
        shot = check_page(driver, page, failures, "double_pendulum")
        scene = json.loads(driver.execute_script(
            "return document.getElementById('scene').textContent"))
        if len(scene["meshes"]) != 3:
            failures.append(f"double_pendulum: {len(scene['meshes'])} meshes, not 3")
        bob = frame_position(program, source, "examples/models/double_pendulum.urdf", None,
                             "lower_arm")
        bob[2] -= 0.3  # the sphere's centre, 0.3 m below the frame at the zero state
        x, y = driver.execute_script("return skographView.pixelOf(arguments[0])", bob)
        brass = lambda p: p[0] > 120 and p[1] > 80 and p[2] < 90 and p[0] > p[2] + 60
        if not near(shot, x, y, brass, radius=4):
            failures.append(f"double_pendulum: the brass bob is not at ({x:.0f}, {y:.0f})")

        # A missing mesh: the note names it and the link's inertia box is drawn instead.
        model = os.path.join(work, "missing_mesh.urdf")
        with open(os.path.join(source, "examples/models/double_pendulum.urdf")) as text:
            urdf = text.read().replace('filename="meshes/rod.stl"', 'filename="absent.stl"')
        urdf = urdf.replace('filename="meshes/',
                            'filename="' + os.path.join(source, "examples/models/meshes") + "/")
        with open(model, "w") as out:
            out.write(urdf)
        page = os.path.join(work, "missing_mesh.html")
        subprocess.run([program, "view", model, "--out", page], cwd=source, check=True,
                       capture_output=True)
        check_page(driver, page, failures, "missing mesh")
        notes = driver.find_element("tag name", "body").text
        if "1 mesh file is missing (absent.stl)" not in notes:
            failures.append("missing mesh: no note naming absent.stl")
        boxes = driver.execute_script("return skographView.boxesShown()")
        if boxes < 2:
            failures.append(f"missing mesh: {boxes} inertia boxes drawn, not the two arms'")
    finally:
        driver.quit()
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
