#!/usr/bin/env python3
"""Mean link utilization inside and between MoEntwine's FTD blocks, per phase of a step, from the
per-phase heatmaps `wsc llm infer ... --heatmap OUT.svg` writes (OUT.phase-<kind>.svg).

Usage: bench/moe_phase_links.py OUT.svg BLOCK_X BLOCK_Y
A die (x, y) is in block (x // BLOCK_X, y // BLOCK_Y); a link is intra-block when both its
routers are (ER on 4x4 with dp = tp = 4: 2 x 2 blocks are the FTDs). Prints one markdown row
per phase: its share of the run, mean utilization of intra- and inter-block links, and how many
of each are hot (>= 50% of the phase's busiest link) or cold (< 10%)."""
import glob, html, re, sys

out, bx, by = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
stem = out[:-4] if out.endswith(".svg") else out
print("| phase | share of run | intra-block mean util | inter-block mean util | intra hot / cold | inter hot / cold |")
print("|---|---|---|---|---|---|")
rows = []
for path in sorted(glob.glob(stem + ".phase-*.svg")):
    text = open(path).read()
    title = re.search(r"while the dies run (.*?) \(([\d.]+)% of the run", html.unescape(text))
    links = re.findall(r'data-name="r\((\d+),(\d+)\)\.[NSEW]-&gt;r\((\d+),(\d+)\)" data-kind="[^"]*" data-util="([^"]*)"', text)
    if not title or not links:
        continue
    utils = [float(u) for *_, u in links]
    top = max(utils) if utils else 0.0
    groups = {True: [], False: []}
    for x0, y0, x1, y1, u in links:
        intra = (int(x0) // bx, int(y0) // by) == (int(x1) // bx, int(y1) // by)
        groups[intra].append(float(u))
    def stat(v):
        mean = sum(v) / len(v) if v else 0.0
        hot = sum(1 for u in v if top > 0 and u >= 0.5 * top)
        cold = sum(1 for u in v if u < 0.1 * top or top == 0)
        return mean, hot, cold, len(v)
    (mi, hi, ci, ni), (mo, ho, co, no) = stat(groups[True]), stat(groups[False])
    rows.append((float(title.group(2)), f"| {title.group(1)} | {title.group(2)}% | {mi:.3f} | {mo:.3f} | "
                 f"{hi} / {ci} of {ni} | {ho} / {co} of {no} |"))
for _, r in sorted(rows, reverse=True):
    print(r)
