"""The time formatting and the table of the compat profiler's events
(:meth:`ftrans.compat.autograd.profiler_util.EventList.table`), as PyTorch's
``torch.autograd.profiler_util`` prints them."""
from __future__ import annotations

from typing import Any

__all__: list[str] = []


# ============================================================================ formatting
def _format_time(time_us: float) -> str:
    """``time_us`` (microseconds) as PyTorch prints it: ``1.234s``, ``12.345ms`` or
    ``123.456us`` (three decimals, the largest unit the value reaches)."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_time_us: float) -> str:
    """``time_us`` as a percentage of ``total_time_us`` (``"NaN"`` when the total is 0)."""
    if total_time_us == 0:
        if time_us != 0:
            raise AssertionError(f"Expected time_us == 0 but got {time_us}")
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"



def _build_table(events: Any, sort_by: str | None = None, header: str | None = None,
                 row_limit: int = 100, max_src_column_width: int | None = 75,
                 max_name_column_width: int | None = 55,
                 max_shapes_column_width: int | None = 80,
                 top_level_events_only: bool = False, time_unit: str | None = None) -> str:
    """PyTorch's ``profiler_util._build_table`` for CPU-only events (see
    :meth:`EventList.table`)."""
    if len(events) == 0:
        return ""
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device")
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack]
    src_w = 0
    if stacks:
        src_w = max(max(len(s) for s in st) for st in stacks) + 4
        if max_src_column_width is not None:
            src_w = min(src_w, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
               "# of Calls"]
    widths: list[tuple[int, str]] = [(name_w, ">")] + [(12, ">")] * 6
    if has_shapes:
        headers.append("Input Shapes")
        widths.append((shapes_w, ">"))
    if stacks:
        headers.append("Source Location")
        widths.append((src_w, "<"))
    row_format = "".join("{: " + d + str(w) + "}  " for w, d in widths)
    header_sep = "".join("-" * w + "  " for w, _ in widths)
    line_length = sum(w + 2 for w, _ in widths) - 2

    def fmt(t: float) -> str:
        if time_unit == "s":
            return f"{t / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{t / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{t:.3f}us"
        return _format_time(t)

    def trim_path(path: str) -> str:
        if len(path) > src_w:
            path = path[len(path) - src_w:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    total = sum(e.self_cpu_time_total for e in events)
    lines: list[str] = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        e.self_cpu_percent = _format_time_share(e.self_cpu_time_total, total)
        e.total_cpu_percent = (_format_time_share(e.cpu_time_total, total)
                               if not e.is_async else 0)
        row: list[Any] = [name, e.self_cpu_percent, fmt(e.self_cpu_time_total), e.total_cpu_percent,
               fmt(e.cpu_time_total), fmt(e.cpu_time), e.count]
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        if stacks:
            row.append(trim_path(e.stack[0]) if e.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (e.stack or [])[1:]:
                lines.append(row_format.format(*(blank + [trim_path(entry)])))
            lines.append(row_format.format(*(blank + [""])))
    lines += [header_sep, f"Self CPU time total: {fmt(total)}"]
    return "".join(s + "\n" for s in lines)
