#!/usr/bin/python3
"""Balance a cart-pole upright with an LQR, the way a control engineer would: linearize the
mechanism at the upright rest state (skograph's analytic derivatives), design the gain on the
state-space (A, B) with SciPy's continuous algebraic Riccati equation, and simulate the closed
loop with skograph's forward dynamics.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/lqr_balance.py \
        examples/models/cartpole.yaml --angle 0.1 --time 5

Prints the open loop's unstable eigenvalue, the gain and the pole's angle over time; exits with
status 1 if the pole is not within 1e-3 rad of upright at the end.
"""
import argparse

import numpy as np
import scipy.linalg

import skograph


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", nargs="?", default="examples/models/cartpole.yaml")
    parser.add_argument("--angle", type=float, default=0.1, help="initial tilt (rad)")
    parser.add_argument("--time", type=float, default=5.0, help="seconds to simulate")
    parser.add_argument("--step", type=float, default=1e-3, help="integration step (s)")
    args = parser.parse_args()

    model = skograph.load_model(args.model)
    n = model.dof_count
    cart, pole = model.dofs.index("cart"), model.dofs.index("pole")

    # The upright rest state, held by nothing (the pole's torque is not an input): A and B of
    # x = (q, qd) with u the cart's force.
    lin = model.linearize(np.zeros(n), inputs=["cart"])
    A, B = lin["A"], lin["B"]
    unstable = max(value.real for value in lin["eigenvalues"])
    print(f"open loop: unstable eigenvalue {unstable:.4f} 1/s (doubling time "
          f"{np.log(2) / unstable:.3f} s)")

    # LQR: minimize the integral of x' Q x + u' R u.
    Q = np.diag([10.0] * n + [1.0] * n)
    Q[pole, pole] = 100.0
    R = np.array([[0.1]])
    P = scipy.linalg.solve_continuous_are(A, B, Q, R)
    K = np.linalg.solve(R, B.T @ P)
    closed = np.linalg.eigvals(A - B @ K)
    print("gain K:", np.array2string(K[0], precision=3))
    print("closed-loop eigenvalues: real parts", np.array2string(np.sort(closed.real),
                                                                precision=3))

    # The closed loop on the nonlinear dynamics: u = -K x, classical Runge-Kutta.
    def rates(x):
        q, qd = x[:n], x[n:]
        tau = np.zeros(n)
        tau[cart] = -(K @ x)[0]
        return np.concatenate([qd, model.forward_dynamics(q, qd, tau)])

    x = np.zeros(2 * n)
    x[pole] = args.angle
    h, steps = args.step, int(round(args.time / args.step))
    for step in range(steps + 1):
        if step % int(round(1.0 / h)) == 0:
            print(f"t = {step * h:4.1f} s: pole {x[pole]:+.2e} rad, cart {x[cart]:+.3f} m")
        if step == steps:
            break
        k1 = rates(x)
        k2 = rates(x + 0.5 * h * k1)
        k3 = rates(x + 0.5 * h * k2)
        k4 = rates(x + h * k3)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    upright = abs(x[pole]) < 1e-3
    print("balanced" if upright else "fell")
    return 0 if upright else 1


if __name__ == "__main__":
    raise SystemExit(main())
