"""Helpers shared by the bot-sites tests."""

from pathlib import Path

import numpy as np

from hybridsched.bot_sites.instance import Instance
from hybridsched.io.shared_data import BRAUN_FOLDER, shared_data_path

BRAUN_NAMES = [f"u_{c}_{h}.0" for c in "cis" for h in ("hihi", "hilo", "lohi", "lolo")]


def braun_dir() -> Path | None:
    folder = shared_data_path(BRAUN_FOLDER)
    return folder if folder and (folder / "u_c_hihi.0").is_file() else None


def random_instance(rng: np.random.Generator, *, K=None, M=None, dag=True, prices=True,
                    integer_times=True, max_tasks=5, max_procs=3) -> Instance:
    """Small random instance; integer times make ties frequent (tie-breaking matters)."""
    K = K or int(rng.integers(1, 5))
    M = M or int(rng.integers(1, 4))
    etc = rng.integers(1, 6, (K, M)).astype(float) if integer_times else rng.uniform(1, 10, (K, M))
    edges = [(a, b) for a in range(K) for b in range(a + 1, K) if dag and rng.random() < 0.3]
    price = rng.choice([0.0, 1.0, 2.0], M) if prices else np.zeros(M)
    return Instance(
        name="random",
        bot_ids=tuple(f"b{k}" for k in range(K)),
        site_ids=tuple(f"s{i}" for i in range(M)),
        tasks=rng.integers(1, max_tasks + 1, K),
        procs=rng.integers(1, max_procs + 1, M),
        price=price,
        compute=etc,
        edges=np.array(edges, dtype=int).reshape(-1, 2),
    )
