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

  // Link frames: a pose per link, [px, py, pz, qx, qy, qz, qw] (scene.poses[frame], or the
  // forward kinematics of the joint sliders).
  const linkPose = (poses, link) => {
    const p = poses[link];
    return { position: new THREE.Vector3(p[0], p[1], p[2]), quaternion: new THREE.Quaternion(p[3], p[4], p[5], p[6]) };
  };
  // A point given in a link's frame (link -1: the world), in the world.
  const worldPoint = (poses, link, point) => {
    const local = new THREE.Vector3(...point);
    if (link < 0) return local;
    const pose = linkPose(poses, link);
    return local.applyQuaternion(pose.quaternion).add(pose.position);
  };

  // Inertia boxes: one per link with mass (the box of the link's mass and principal inertias),
  // drawn where the link has no visual geometry or misses a mesh file.
  const boxes = scene.links.map((link) => {
    if (!link.box || (link.visuals.length > 0 && link.missing.length === 0)) return null;
    return named(new THREE.Mesh(cube, material(colours.body, 0.35)), link.name);
  });
  // Visual geometry: per link a group at the link's frame holding each visual in its own frame
  // (sizes as rigid/visual.hpp gives them; three.js's cylinders run along y, turned onto z).
  const meshGeometries = scene.meshes.map((mesh) => {
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(mesh.vertices), 3));
    geometry.setIndex(new THREE.BufferAttribute(new Uint32Array(mesh.triangles), 1));
    geometry.computeVertexNormals();
    return geometry;
  });
  const alongZ = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(1, 0, 0), Math.PI / 2);
  function shapeOf(visual, look, name) {
    const part = (geometry) => {
      const mesh = new THREE.Mesh(geometry, look);
      mesh.userData.name = name;
      pickable.push(mesh);
      return mesh;
    };
    const [a, b, c] = visual.size;
    const group = new THREE.Group();
    if (visual.shape === "box") {
      const box = part(cube);
      box.scale.set(a, b, c);
      group.add(box);
    } else if (visual.shape === "sphere") {
      const round = part(sphere);
      round.scale.setScalar(a);
      group.add(round);
    } else if (visual.shape === "cylinder" || visual.shape === "capsule") {
      const body = part(cylinder);
      group.add(body);
      body.scale.set(a, b, a);
      body.quaternion.copy(alongZ);
      if (visual.shape === "capsule")
        for (const end of [-0.5, 0.5]) {
          const cap = part(sphere);
          cap.scale.setScalar(a);
          cap.position.set(0, 0, end * b);
          group.add(cap);
        }
    } else if (visual.shape === "mesh") {
      group.add(part(meshGeometries[visual.mesh]));
    }
    return group;
  }
  const linkGroups = scene.links.map((link) => {
    const group = new THREE.Group();
    link.visuals.forEach((visual) => {
      const look = material(visual.colour || colours.visual, Math.min(visual.opacity, 0.85));
      look.side = THREE.DoubleSide;  // meshes of either winding
      const item = shapeOf(visual, look, link.name);
      item.position.set(...visual.position);
      item.quaternion.set(...visual.quaternion);
      item.scale.multiply(new THREE.Vector3(...visual.scale));
      group.add(item);
    });
    world.add(group);
    return group;
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
  // Loop forces (a trajectory's loop force columns): an arrow per loop at its child frame, the
  // longest force of the whole trajectory a quarter of the mechanism's size.
  let largestForce = 0;
  for (const forces of scene.loop_forces)
    for (const force of forces)
      if (force) largestForce = Math.max(largestForce, new THREE.Vector3(...force).length());
  const forceArrows = scene.loops.map(() => {
    const arrow = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 1,
                                        colours.force, 2.5 * ball, 1.5 * ball);
    arrow.visible = false;
    world.add(arrow);
    return arrow;
  });
  // Aggregates (closed chains): a box around each one's link frames and joints.
  const aggregateBoxes = scene.aggregates.map(() => {
    const helper = new THREE.Box3Helper(new THREE.Box3(), colours.aggregate);
    world.add(helper);
    return helper;
  });
  const com = named(new THREE.Mesh(sphere, material(colours.com, 1)), "centre of mass");
  com.scale.setScalar(1.8 * ball);

  // Everything at the link poses `poses` and the centre of mass `centre`.
  let forcesNow = null;  // the loop forces of the frame shown (none while sliders move a tree)
  function draw(poses, centre) {
    scene.links.forEach((link, l) => {
      const pose = linkPose(poses, l);
      triads[l].position.copy(pose.position);
      triads[l].quaternion.copy(pose.quaternion);
      linkGroups[l].position.copy(pose.position);
      linkGroups[l].quaternion.copy(pose.quaternion);
      if (boxes[l]) {
        const box = link.box;
        boxes[l].position.copy(worldPoint(poses, l, box.center));
        boxes[l].quaternion.copy(pose.quaternion).multiply(new THREE.Quaternion(...box.quaternion));
        boxes[l].scale.set(...box.size);
      }
    });
    scene.joints.forEach((joint, j) => {
      const item = joints[j];
      const child = linkPose(poses, joint.child).position;
      // The rod from the parent's frame (the world's origin for a joint on the world) to the joint.
      const anchor = worldPoint(poses, joint.parent, [0, 0, 0]);
      const origin = worldPoint(poses, joint.parent, joint.origin);
      item.ball.position.copy(child);
      // A floating joint's base is not held by a rod to the world.
      placeRod(item.rod, joint.type === "floating" ? origin : anchor, origin, 0.35 * ball);
      placeRod(item.slide, origin, child, 0.6 * ball);  // a prismatic joint's travel
      if (joint.type !== "prismatic") item.slide.visible = false;
      if (item.axis) {
        item.axis.position.copy(child);
        item.axis.setDirection(new THREE.Vector3(...joint.axis).applyQuaternion(linkPose(poses, joint.child).quaternion).normalize());
      }
    });
    scene.loops.forEach((loop, k) => {
      const a = worldPoint(poses, loop.parent, loop.parent_origin);
      const b = worldPoint(poses, loop.child, loop.child_origin);
      loops[k].markers[0].position.copy(a);
      loops[k].markers[1].position.copy(b);
      placeRod(loops[k].gap, a, b, 0.5 * ball);
    });
    com.position.set(...centre);
    scene.aggregates.forEach((aggregate, a) => {
      const box = aggregateBoxes[a].box.makeEmpty();
      for (const l of aggregate.links) box.expandByPoint(linkPose(poses, l).position);
      box.expandByScalar(4 * ball);
    });
    scene.loops.forEach((loop, k) => {
      const force = forcesNow && forcesNow[k];
      const length = force ? new THREE.Vector3(...force).length() : 0;
      forceArrows[k].visible = length > 0 && largestForce > 0;
      if (!forceArrows[k].visible) return;
      forceArrows[k].position.copy(worldPoint(poses, loop.child, loop.child_origin));
      forceArrows[k].setDirection(new THREE.Vector3(...force).divideScalar(length));
      forceArrows[k].setLength(Math.max(0.25 * size * length / largestForce, 3 * ball), 2.5 * ball, 1.5 * ball);
    });
  }

  // Everything at frame f.
  function show(f) {
    forcesNow = scene.loop_forces[f];
    draw(scene.poses[f], scene.com[f]);
    // The slider runs over time (seconds) or over a swept coordinate.
    document.getElementById("time").textContent = scene.variable + " = " + scene.times[f].toFixed(3) +
      (scene.variable === "t" ? " s" : "");
    if (scene.sliders) setJointSliders(scene.q[f]);
  }

  // A tree's joints moved one by one (scene.sliders): forward kinematics in the page, each link
  // frame its parent's times the joint's origin times its motion (rigid/mechanism.hpp):
  // revolute and continuous a turn q about the axis, prismatic a slide q along it, spherical the
  // rotation vector q, floating the position q[3..5] then the rotation vector q[0..2].
  const jointQ = [];  // the sliders' q
  const turnOf = (vector) => {
    const v = new THREE.Vector3(...vector), angle = v.length();
    return angle > 0 ? new THREE.Quaternion().setFromAxisAngle(v.divideScalar(angle), angle)
                     : new THREE.Quaternion();
  };
  function forwardKinematics(q) {
    const poses = new Array(scene.links.length);
    const byParent = new Map();
    scene.joints.forEach((joint) => {
      if (!byParent.has(joint.parent)) byParent.set(joint.parent, []);
      byParent.get(joint.parent).push(joint);
    });
    const place = (parentPosition, parentTurn, joint) => {
      const values = joint.dofs.map((i) => q[i]);
      const turn = parentTurn.clone().multiply(new THREE.Quaternion(...joint.origin_quaternion));
      const position = new THREE.Vector3(...joint.origin).applyQuaternion(parentTurn).add(parentPosition);
      if (joint.type === "revolute" || joint.type === "continuous") {
        turn.multiply(new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(...joint.axis).normalize(), values[0]));
      } else if (joint.type === "prismatic") {
        position.add(new THREE.Vector3(...joint.axis).multiplyScalar(values[0]).applyQuaternion(turn));
      } else if (joint.type === "spherical") {
        turn.multiply(turnOf(values));
      } else if (joint.type === "floating") {
        position.add(new THREE.Vector3(values[3], values[4], values[5]).applyQuaternion(turn));
        turn.multiply(turnOf(values.slice(0, 3)));
      }
      poses[joint.child] = [position.x, position.y, position.z, turn.x, turn.y, turn.z, turn.w];
      for (const next of byParent.get(joint.child) || []) place(position, turn, next);
    };
    for (const joint of byParent.get(-1) || []) place(new THREE.Vector3(), new THREE.Quaternion(), joint);
    // The centre of mass: each link's mass at its centre.
    const centre = new THREE.Vector3();
    let mass = 0;
    scene.links.forEach((link, l) => {
      if (!link.box || !poses[l]) return;
      centre.add(worldPoint(poses, l, link.box.center).multiplyScalar(link.mass));
      mass += link.mass;
    });
    if (mass > 0) centre.divideScalar(mass);
    return { poses: poses, centre: [centre.x, centre.y, centre.z] };
  }
  const sliderInputs = [];
  function setJointSliders(q) {
    q.forEach((value, i) => {
      jointQ[i] = value;
      if (sliderInputs[i]) sliderInputs[i].value = String(value);
    });
  }
  if (scene.sliders) {
    const panel = document.getElementById("joints");
    const heading = document.createElement("h2");
    heading.textContent = "joints";
    panel.appendChild(heading);
    scene.joints.forEach((joint) => {
      joint.dofs.forEach((dof, k) => {
        const label = document.createElement("label");
        const input = document.createElement("input");
        input.type = "range";
        input.id = "dof-" + dof;
        const start = scene.q[0][dof];
        // Turns over a full turn, slides over their limits or the mechanism's size.
        const turning = joint.type !== "prismatic" && !(joint.type === "floating" && k >= 3);
        const range = joint.limits || (turning ? [-Math.PI, Math.PI] : [start - size, start + size]);
        input.min = String(Math.min(range[0], start));
        input.max = String(Math.max(range[1], start));
        input.step = String((range[1] - range[0]) / 1000);
        input.value = String(start);
        input.addEventListener("input", () => {
          jointQ[dof] = Number(input.value);
          const moved = forwardKinematics(jointQ);
          forcesNow = null;
          draw(moved.poses, moved.centre);
          render();
        });
        label.textContent = scene.dof_names[dof];
        label.appendChild(input);
        panel.appendChild(label);
        sliderInputs[dof] = input;
      });
    });
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
    // Moves dof i (0-based, the file's order) to value as its slider does.
    setDof: (i, value) => {
      sliderInputs[i].value = String(value);
      sliderInputs[i].dispatchEvent(new Event("input"));
    },
    boxesShown: () => boxes.filter((box) => box && box.visible).length,
    pixelOf: (point) => {
      const p = new THREE.Vector3(...point).project(camera);
      const rect = renderer.domElement.getBoundingClientRect();
      return [rect.left + (p.x + 1) / 2 * rect.width, rect.top + (1 - p.y) / 2 * rect.height];
    },
  };
  document.body.dataset.ready = "1";
})();
