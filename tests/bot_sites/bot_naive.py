"""Textbook task-by-task greedy heuristics, written independently for the tests.

Machines are processors (global index, sites in order); tasks are numbered
BoT by BoT; ties go to the lowest index (strict comparisons while scanning in
index order). DAG extension: a task is a candidate once every predecessor
BoT is fully scheduled and cannot start before their last finish.
"""

from __future__ import annotations


def _setup(inst):
    site = [i for i in range(inst.n_sites) for _ in range(int(inst.procs[i]))]
    p = inst.p.tolist()
    cost = inst.cost_per_task.tolist()
    tasks = [k for k in range(inst.n_bots) for _ in range(int(inst.tasks[k]))]
    preds = [list(x) for x in inst.predecessors]
    return site, p, cost, tasks, preds


def one_pass(inst, rule, objective="makespan"):
    """G-MET, G-MCT, G-OLB: tasks in list order (BoTs in topological order)."""
    site, p, cost, _, preds = _setup(inst)
    N = len(site)
    mat = [0.0] * N
    finish = [0.0] * inst.n_bots
    out = []
    for k in inst.topological_order():
        r = max([finish[a] for a in preds[k]], default=0.0)
        for _ in range(int(inst.tasks[k])):
            best, best_key = None, None
            for j in range(N):
                s = max(mat[j], r)
                pj, cj = p[k][site[j]], cost[k][site[j]]
                if rule == "met":
                    key = (pj, cj, s) if objective == "makespan" else (cj, pj, s)
                elif rule == "mct":
                    key = (s + pj,) if objective == "makespan" else (cj, s + pj)
                else:
                    key = (s,)
                if best_key is None or key < best_key:
                    best, best_key = j, key
            s = max(mat[best], r)
            out.append((k, best, s))
            mat[best] = s + p[k][site[best]]
            finish[k] = max(finish[k], mat[best])
    return out


def batch(inst, rule, objective="makespan"):
    """G-Min-min, G-Max-min, G-Sufferage, one task per iteration."""
    site, p, cost, tasks, preds = _setup(inst)
    N = len(site)
    mat = [0.0] * N
    left = [int(t) for t in inst.tasks]
    finish = [0.0] * inst.n_bots
    done = [False] * inst.n_bots
    mapped = [False] * len(tasks)
    out = []
    for _ in range(len(tasks)):
        chosen = None
        chosen_val = None
        for t, k in enumerate(tasks):
            if mapped[t] or not all(done[a] for a in preds[k]):
                continue
            r = max([finish[a] for a in preds[k]], default=0.0)
            keys = []
            for j in range(N):
                ct = max(mat[j], r) + p[k][site[j]]
                keys.append(((ct,) if objective == "makespan" else (cost[k][site[j]], ct), j))
            keys.sort()
            (k1, j1) = keys[0]
            if rule == "min-min":
                val = k1
                better = chosen_val is None or val < chosen_val
            elif rule == "max-min":
                val = k1
                better = chosen_val is None or val > chosen_val
            else:
                if len(keys) > 1:
                    k2 = keys[1][0]
                    val = tuple(b - a for a, b in zip(k1, k2, strict=True))
                else:
                    val = tuple(0.0 for _ in k1)
                better = chosen_val is None or val > chosen_val
            if better:
                chosen, chosen_val, chosen_j, chosen_r = t, val, j1, r
        k = tasks[chosen]
        s = max(mat[chosen_j], chosen_r)
        out.append((k, chosen_j, s))
        mat[chosen_j] = s + p[k][site[chosen_j]]
        mapped[chosen] = True
        finish[k] = max(finish[k], mat[chosen_j])
        left[k] -= 1
        if left[k] == 0:
            done[k] = True
    return out


NAIVE = {
    "g-met": lambda inst, objective="makespan": one_pass(inst, "met", objective),
    "g-mct": lambda inst, objective="makespan": one_pass(inst, "mct", objective),
    "g-olb": lambda inst, objective="makespan": one_pass(inst, "olb", objective),
    "g-min-min": lambda inst, objective="makespan": batch(inst, "min-min", objective),
    "g-max-min": lambda inst, objective="makespan": batch(inst, "max-min", objective),
    "g-sufferage": lambda inst, objective="makespan": batch(inst, "sufferage", objective),
}


def expand(inst, solution):
    """Sorted (processor, start, bot) of every task of a block solution."""
    off = inst.proc_offset
    rows = []
    for k, i, j, c, s in zip(solution.bot, solution.site, solution.proc, solution.count,
                             solution.start, strict=True):
        for q in range(int(c)):
            rows.append((int(off[i] + j), float(s + q * inst.p[k, i]), int(k)))
    return sorted(rows)


def same_schedule(a, b) -> bool:
    """Equal task lists up to floating-point noise in start times (merged blocks)."""
    if len(a) != len(b):
        return False
    return all(x[0] == y[0] and x[2] == y[2] and abs(x[1] - y[1]) <= 1e-9 * max(1.0, abs(y[1]))
               for x, y in zip(a, b, strict=True))
