#!/usr/bin/python3
"""Random trees for the scaling benchmarks (bench/scaling.sh): a recursive random tree of N bodies
(each body's parent drawn uniformly among the earlier ones), written as a URDF file (revolute
joints about random axes, random origins and inertias, joints in shuffled order as a file may
list them) or as a DOT digraph (edges in shuffled order).

    random_tree.py urdf N [SEED] > tree.urdf
    random_tree.py chain N [SEED] > chain.urdf   (a serial chain: body k's parent is body k-1)
    random_tree.py dot N [SEED] > tree.dot
"""
import random
import sys


def parents(n, rnd):
    return [rnd.randrange(0, k) if k > 0 else -1 for k in range(n)]


def urdf(n, rnd, out, chain=False):
    parent = [k - 1 for k in range(n)] if chain else parents(n, rnd)
    out.write(f'<robot name="random_tree_{n}">\n<link name="base"/>\n')
    for k in range(n):
        m = rnd.uniform(0.5, 2.0)
        a, b, c = (rnd.uniform(0.05, 0.15) * m for _ in range(3))
        # Principal moments obeying the triangle inequality.
        ixx, iyy, izz = a + b, b + c, a + c
        out.write(f'<link name="b{k}"><inertial><origin xyz="{rnd.uniform(-.3, .3):.4f} '
                  f'{rnd.uniform(-.3, .3):.4f} {rnd.uniform(-.3, .3):.4f}"/><mass value="{m:.4f}"/>'
                  f'<inertia ixx="{ixx:.4f}" iyy="{iyy:.4f}" izz="{izz:.4f}" ixy="0" ixz="0" '
                  f'iyz="0"/></inertial></link>\n')
    joints = []
    for k in range(n):
        p = 'base' if parent[k] < 0 else f'b{parent[k]}'
        axis = [rnd.uniform(-1, 1) for _ in range(3)]
        joints.append(f'<joint name="j{k}" type="continuous"><parent link="{p}"/><child link="b{k}"/>'
                      f'<origin xyz="{rnd.uniform(-.5, .5):.4f} {rnd.uniform(-.5, .5):.4f} '
                      f'{rnd.uniform(-.5, .5):.4f}" rpy="{rnd.uniform(-3, 3):.4f} '
                      f'{rnd.uniform(-1.5, 1.5):.4f} {rnd.uniform(-3, 3):.4f}"/><axis xyz="'
                      f'{axis[0]:.4f} {axis[1]:.4f} {axis[2]:.4f}"/></joint>\n')
    rnd.shuffle(joints)
    out.writelines(joints)
    out.write('</robot>\n')


def dot(n, rnd, out):
    parent = parents(n, rnd)
    edges = [f'  n{parent[k]} -> n{k};\n' for k in range(1, n)]
    rnd.shuffle(edges)
    out.write('digraph random_tree {\n  n0;\n')
    out.writelines(edges)
    out.write('}\n')


if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] not in ('urdf', 'chain', 'dot'):
        sys.exit('usage: random_tree.py urdf|chain|dot N [SEED]')
    generator = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    if sys.argv[1] == 'dot':
        dot(int(sys.argv[2]), generator, sys.stdout)
    else:
        urdf(int(sys.argv[2]), generator, sys.stdout, chain=sys.argv[1] == 'chain')
