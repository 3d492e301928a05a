// The 3D view of a mechanism (skograph view): draws the scene skograph wrote into the page (the
// element #scene, docs/pictures.md gives its keys) with three.js, and plays its frames back.
// Loaded as a plain script after three.js and its OrbitControls, both inlined in the page.
(function () {
  "use strict";
  const scene = JSON.parse(document.getElementById("scene").textContent);
  const view = document.getElementById("view");
  const tooltip = document.getElementById("tooltip");

  // The size of the mechanism: every link frame's origin over every frame.
  const lower = new THREE.Vector3(Infinity, Infinity, Infinity);
  const upper = new THREE.Vector3(-Infinity, -Infinity, -Infinity);
  for (const poses of scene.poses)
    for (const pose of poses) {
      lower.min(new THREE.Vector3(pose[0], pose[1], pose[2]));
      upper.max(new THREE.Vector3(pose[0], pose[1], pose[2]));
    }
  if (!isFinite(lower.x)) lower.set(0, 0, 0), upper.set(0, 0, 0);
  const centre = lower.clone().add(upper).multiplyScalar(0.5);
  const size = Math.max(upper.clone().sub(lower).length(), scene.scale || 0, 1e-3);
  const ball = 0.012 * size;  // radius of a joint's ball; rods, markers and arrows scale with it

  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  renderer.setClearColor(0xffffff);
  view.appendChild(renderer.domElement);
  const world = new THREE.Scene();
  world.add(new THREE.HemisphereLight(0xffffff, 0x888888, 0.9));
  const sun = new THREE.DirectionalLight(0xffffff, 0.5);
  sun.position.set(1, -2, 3);
  world.add(sun);
  // z up, as the models are written.
  const camera = new THREE.PerspectiveCamera(35, 1, size * 1e-3, size * 100);
  camera.up.set(0, 0, 1);
  camera.position.copy(centre.clone().add(new THREE.Vector3(0.85, -1.45, 0.65).multiplyScalar(size)));
  const controls = new THREE.OrbitControls(camera, renderer.domElement);
  controls.target.copy(centre);
  controls.update();

  function material(colour, opacity) {
    return new THREE.MeshPhongMaterial({ color: colour, transparent: opacity < 1, opacity: opacity });
  }
  const colours = scene.colours;
  const sphere = new THREE.SphereBufferGeometry(1, 16, 12);
  const cylinder = new THREE.CylinderBufferGeometry(1, 1, 1, 10);  // along y, unit height
  const cube = new THREE.BoxBufferGeometry(1, 1, 1);
  const pickable = [];  // meshes that name something on hover

  function named(mesh, name) {
    mesh.userData.name = name;
    pickable.push(mesh);
    world.add(mesh);
    return mesh;
  }
  // A rod from a to b (world points).
  function placeRod(mesh, a, b, radius) {
    const direction = b.clone().sub(a);
    const length = direction.length();
    mesh.visible = length > 1e-12;
    if (!mesh.visible) return;
    mesh.position.copy(a).add(b).multiplyScalar(0.5);
    mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), direction.divideScalar(length));
    mesh.scale.set(radius, length, radius);
  }

  // Link frames: poses[frame][link] = [px, py, pz, qx, qy, qz, qw].
  const linkPose = (frame, link) => {
    const p = scene.poses[frame][link];
    return { position: new THREE.Vector3(p[0], p[1], p[2]), quaternion: new THREE.Quaternion(p[3], p[4], p[5], p[6]) };
  };
  // A point given in a link's frame (link -1: the world), in the world at a frame.
  const worldPoint = (frame, link, point) => {
    const local = new THREE.Vector3(...point);
    if (link < 0) return local;
    const pose = linkPose(frame, link);
    return local.applyQuaternion(pose.quaternion).add(pose.position);
  };

  // Inertia boxes: one per link with mass (the box of the link's mass and principal inertias).
  const boxes = scene.links.map((link) => {
    if (!link.box) return null;
    return named(new THREE.Mesh(cube, material(colours.body, 0.35)), link.name);
  });
  // Triads of the link frames (toggled).
  const triads = scene.links.map(() => {
    const triad = new THREE.AxesHelper(6 * ball);
    triad.visible = false;
    world.add(triad);
    return triad;
  });
  // Tree joints: a ball at the child's frame, a rod from the parent's frame to the joint.
  const joints = scene.joints.map((joint) => {
    const colour = joint.independent ? colours.independent : colours.joint;
    const item = {
      ball: named(new THREE.Mesh(sphere, material(colour, 1)), joint.name + " (" + joint.type + ")"),
      rod: named(new THREE.Mesh(cylinder, material(colours.rod, 1)), joint.name),
      slide: named(new THREE.Mesh(cylinder, material(colour, 1)), joint.name),
      axis: null,
    };
    item.ball.scale.setScalar(joint.independent ? 1.5 * ball : ball);
    if (joint.axis) {
      item.axis = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 8 * ball,
                                        0x444444, 2.5 * ball, 1.5 * ball);
      item.axis.visible = false;
      world.add(item.axis);
    }
    return item;
  });
  // Loop joints: one colour per loop, a marker at each of the two frames it joins.
  const loops = scene.loops.map((loop, index) => {
    const colour = colours.loops[index % colours.loops.length];
    const label = loop.name + " (loop, " + loop.type + ")";
    const markers = [0, 1].map(() => {
      const marker = named(new THREE.Mesh(cube, material(colour, 1)), label);
      marker.scale.setScalar(2.2 * ball);
      return marker;
    });
    return { markers: markers, gap: named(new THREE.Mesh(cylinder, material(colour, 1)), label) };
  });
  const com = named(new THREE.Mesh(sphere, material(colours.com, 1)), "centre of mass");
  com.scale.setScalar(1.8 * ball);

  // Everything at frame f.
  function show(f) {
    scene.links.forEach((link, l) => {
      const pose = linkPose(f, l);
      triads[l].position.copy(pose.position);
      triads[l].quaternion.copy(pose.quaternion);
      if (boxes[l]) {
        const box = link.box;
        boxes[l].position.copy(worldPoint(f, l, box.center));
        boxes[l].quaternion.copy(pose.quaternion).multiply(new THREE.Quaternion(...box.quaternion));
        boxes[l].scale.set(...box.size);
      }
    });
    scene.joints.forEach((joint, j) => {
      const item = joints[j];
      const child = linkPose(f, joint.child).position;
      // The rod from the parent's frame (the world's origin for a joint on the world) to the joint.
      const anchor = worldPoint(f, joint.parent, [0, 0, 0]);
      const origin = worldPoint(f, joint.parent, joint.origin);
      item.ball.position.copy(child);
      // A floating joint's base is not held by a rod to the world.
      placeRod(item.rod, joint.type === "floating" ? origin : anchor, origin, 0.35 * ball);
      placeRod(item.slide, origin, child, 0.6 * ball);  // a prismatic joint's travel
      if (joint.type !== "prismatic") item.slide.visible = false;
      if (item.axis) {
        item.axis.position.copy(child);
        item.axis.setDirection(new THREE.Vector3(...joint.axis).applyQuaternion(linkPose(f, joint.child).quaternion).normalize());
      }
    });
    scene.loops.forEach((loop, k) => {
      const a = worldPoint(f, loop.parent, loop.parent_origin);
      const b = worldPoint(f, loop.child, loop.child_origin);
      loops[k].markers[0].position.copy(a);
      loops[k].markers[1].position.copy(b);
      placeRod(loops[k].gap, a, b, 0.5 * ball);
    });
    com.position.set(...scene.com[f]);
    // The slider runs over time (seconds) or over a swept coordinate.
    document.getElementById("time").textContent = scene.variable + " = " + scene.times[f].toFixed(3) +
      (scene.variable === "t" ? " s" : "");
  }

  // Playback: the slider picks a frame; play advances the time at the chosen speed.
  const slider = document.getElementById("frame");
  slider.max = String(scene.times.length - 1);
  let frame = 0, playing = false, clock = 0, last = null;
  function setFrame(f) {
    frame = Math.max(0, Math.min(scene.times.length - 1, f));
    slider.value = String(frame);
    show(frame);
    render();
  }
  slider.addEventListener("input", () => setFrame(Number(slider.value)));
  const play = document.getElementById("play");
  play.addEventListener("click", () => {
    playing = !playing;
    play.textContent = playing ? "pause" : "play";
    if (frame === scene.times.length - 1) setFrame(0);
    clock = playAt(frame);
    last = null;
    if (playing) requestAnimationFrame(step);
  });
  // Playback runs a trajectory at its times; a sweep (whose values may go down) at ten
  // configurations a second.
  const playAt = (f) => (scene.variable === "t" ? scene.times[f] : f / 10);
  function step(now) {
    if (!playing) return;
    if (last !== null) clock += (now - last) / 1000 * Number(document.getElementById("speed").value);
    last = now;
    let f = frame;
    while (f + 1 < scene.times.length && playAt(f + 1) <= clock) ++f;
    setFrame(f);
    if (f === scene.times.length - 1) {
      playing = false;
      play.textContent = "play";
      return;
    }
    requestAnimationFrame(step);
  }
  for (const [id, items] of [["show-frames", triads], ["show-axes", joints.map((j) => j.axis).filter((a) => a)]])
    document.getElementById(id).addEventListener("change", (event) => {
      items.forEach((item) => (item.visible = event.target.checked));
      render();
    });

  // Names on hover.
  const raycaster = new THREE.Raycaster();
  renderer.domElement.addEventListener("mousemove", (event) => {
    const rect = renderer.domElement.getBoundingClientRect();
    const pointer = new THREE.Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1,
                                      -((event.clientY - rect.top) / rect.height) * 2 + 1);
    raycaster.setFromCamera(pointer, camera);
    const hit = raycaster.intersectObjects(pickable.filter((m) => m.visible))[0];
    tooltip.style.display = hit ? "block" : "none";
    if (hit) {
      tooltip.textContent = hit.object.userData.name;
      tooltip.style.left = event.clientX + 12 + "px";
      tooltip.style.top = event.clientY + 12 + "px";
    }
  });

  function render() {
    renderer.render(world, camera);
  }
  function resize() {
    const width = view.clientWidth, height = view.clientHeight;
    renderer.setSize(width, height);
    camera.aspect = width / Math.max(height, 1);
    camera.updateProjectionMatrix();
    render();
  }
  controls.addEventListener("change", render);
  window.addEventListener("resize", resize);
  resize();
  setFrame(0);

  // For tests and scripts: the pixel a world point is drawn at, and the frame to show.
  window.skographView = {
    setFrame: setFrame,
    pixelOf: (point) => {
      const p = new THREE.Vector3(...point).project(camera);
      const rect = renderer.domElement.getBoundingClientRect();
      return [rect.left + (p.x + 1) / 2 * rect.width, rect.top + (1 - p.y) / 2 * rect.height];
    },
  };
  document.body.dataset.ready = "1";
})();
