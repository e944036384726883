"""What every benchmark prints first: the machine it ran on."""
from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def describe() -> str:
    """Cores, CPU model, memory, Python and the load average, on one line."""
    parts = [f"{os.cpu_count()} cores", cpu_model()]
    try:
        kb = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal")))
        parts.append(f"{kb / 2**20:.0f} GiB RAM")
    except (OSError, StopIteration, ValueError):
        pass
    parts.append(f"Python {platform.python_version()} on {platform.system()} {platform.release()}")
    if hasattr(os, "getloadavg"):
        parts.append("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return "; ".join(parts)
