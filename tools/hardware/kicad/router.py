"""A small two-layer grid router: A* on a 0.25 mm grid, tracks on its lines, vias on its points.

Copper is painted into the grid as the net that owns it, widened by half a cell's diagonal, so
a cell that stays a clearance plus half a track (plus that half diagonal and half a step) away
from every painted cell of another net takes a track centre with the clearance kept for
certain: what the grid says is free, KiCad's design rules check finds clear. Nets are joined
pad by pad to the tree already routed; a net that finds no way is put first and all is routed
again, a few rounds at most. Nothing here is random: the same pads give the same tracks.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

GRID = 0.25
LAYERS = ("F.Cu", "B.Cu")
_BLOCKED = -1
_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
_BUCKET = 1.0
_REACH = 0.6  # the farthest a clearance check looks past an item: clearance plus half a via


@dataclass(frozen=True, slots=True)
class Rect:
    """Copper: the points within ``r`` of an axis-aligned rectangle (a point and ``r``: a
    circle; a line and ``r``: a track or an oval), millimetres."""

    x0: float
    y0: float
    x1: float
    y1: float
    r: float = 0.0

    def distance(self, x: float, y: float) -> float:
        """From a point to this copper's edge (0 inside)."""
        dx = max(self.x0 - x, 0.0, x - self.x1)
        dy = max(self.y0 - y, 0.0, y - self.y1)
        return max(math.hypot(dx, dy) - self.r, 0.0)

    def gap(self, other: Rect) -> float:
        """Between this copper's edge and another's."""
        dx = max(other.x0 - self.x1, 0.0, self.x0 - other.x1)
        dy = max(other.y0 - self.y1, 0.0, self.y0 - other.y1)
        return math.hypot(dx, dy) - self.r - other.r


@dataclass(frozen=True, slots=True)
class Pad:
    """A pad to join: its net, its copper, the layers it is on (0 front, 1 back), and its
    drilled hole's radius (0 for a surface pad)."""

    ref: str
    number: str
    net: str
    shape: Rect
    layers: tuple[int, ...]
    hole: float = 0.0


@dataclass(frozen=True, slots=True)
class Segment:
    start: tuple[float, float]
    end: tuple[float, float]
    width: float
    layer: str
    net: str


@dataclass(frozen=True, slots=True)
class Via:
    at: tuple[float, float]
    net: str


@dataclass(slots=True)
class Routed:
    segments: list[Segment] = field(default_factory=list)
    vias: list[Via] = field(default_factory=list)
    failed: list[tuple[str, str, str]] = field(default_factory=list)  # (net, ref, pad)


@dataclass(frozen=True, slots=True)
class Rules:
    clearance: float = 0.155  # the board's rule is 0.15 mm
    hole_clearance: float = 0.3
    via_diameter: float = 0.6
    via_drill: float = 0.3
    via_cost: float = 12.0
    back_cost: float = 1.6  # per step on the back: keep its ground pour whole
    turn_cost: float = 2.0
    expansions: int = 200000  # a search that looks at more cells gives up
    greed: float = 1.5  # weight of the distance still to go: quicker, a little longer


Cell = tuple[int, int, int]  # layer, column, row


class Grid:
    """The copper already on the board, per layer, in buckets for quick look-ups."""

    def __init__(self, width: float, height: float, edge: float, rules: Rules) -> None:
        self.columns = round(width / GRID) + 1
        self.rows = round(height / GRID) + 1
        self.rules = rules
        self.buckets: list[dict[tuple[int, int], list[tuple[int, Rect]]]] = [{} for _ in LAYERS]
        self.holes: dict[tuple[int, int], list[Rect]] = {}
        # The outline: copper keeps ``edge`` from it, whatever the clearance.
        grow = edge - rules.clearance
        for side in (
            Rect(-5, -5, width + 5, 0, grow),
            Rect(-5, height, width + 5, height + 5, grow),
            Rect(-5, -5, 0, height + 5, grow),
            Rect(width, -5, width + 5, height + 5, grow),
        ):
            for layer in range(len(LAYERS)):
                self.add(layer, _BLOCKED, side)

    def point(self, cell: Cell) -> tuple[float, float]:
        return (round(cell[1] * GRID, 4), round(cell[2] * GRID, 4))

    @staticmethod
    def _keys(rect: Rect, reach: float) -> Iterable[tuple[int, int]]:
        g = rect.r + reach
        for bx in range(
            math.floor((rect.x0 - g) / _BUCKET), math.floor((rect.x1 + g) / _BUCKET) + 1
        ):
            for by in range(
                math.floor((rect.y0 - g) / _BUCKET), math.floor((rect.y1 + g) / _BUCKET) + 1
            ):
                yield bx, by

    def add(self, layer: int, net: int, rect: Rect) -> None:
        for key in self._keys(rect, _REACH):
            self.buckets[layer].setdefault(key, []).append((net, rect))

    def add_hole(self, hole: Rect) -> None:
        for key in self._keys(hole, _REACH):
            self.holes.setdefault(key, []).append(hole)

    def clear(self, layer: int, net: int, copper: Rect) -> bool:
        """Whether ``copper`` of ``net`` keeps the clearance from every other net's."""
        key = (
            math.floor((copper.x0 + copper.x1) / 2 / _BUCKET),
            math.floor((copper.y0 + copper.y1) / 2 / _BUCKET),
        )
        clearance = self.rules.clearance
        for owner, rect in self.buckets[layer].get(key, ()):
            if owner != net and copper.gap(rect) < clearance:
                return False
        return True

    def hole_clear(self, hole: Rect) -> bool:
        key = (math.floor(hole.x0 / _BUCKET), math.floor(hole.y0 / _BUCKET))
        return all(hole.gap(h) >= self.rules.hole_clearance for h in self.holes.get(key, ()))


def _segment_rect(a: tuple[float, float], b: tuple[float, float], radius: float) -> Rect:
    return Rect(min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]), radius)


class _Search:
    """The moves one net may make, worked out as the search asks, and what a step costs."""

    def __init__(
        self, grid: Grid, net: int, width: float, rules: Rules, tolls: Sequence[Zone] = ()
    ) -> None:
        self.grid, self.net, self.half = grid, net, width / 2
        self.rules = rules
        self.tolls = tolls
        self._step: dict[tuple[int, int, int, int, int], bool] = {}
        self._via: dict[tuple[int, int], bool] = {}

    def track(self, cell: Cell) -> bool:
        """Whether a track may end at ``cell``."""
        return self.step(cell, cell)

    def step(self, a: Cell, b: Cell) -> bool:
        """Whether a track may run from ``a`` to the next cell ``b`` (same layer)."""
        layer = a[0]
        if not (0 <= b[1] < self.grid.columns and 0 <= b[2] < self.grid.rows):
            return False
        key = (layer, *min(a[1:], b[1:]), *max(a[1:], b[1:]))
        found = self._step.get(key)
        if found is None:
            copper = _segment_rect(
                (a[1] * GRID, a[2] * GRID), (b[1] * GRID, b[2] * GRID), self.half
            )
            found = self._step[key] = self.grid.clear(layer, self.net, copper)
        return found

    def toll(self, layer: int, c: int, r: int) -> float:
        x, y = c * GRID, r * GRID
        return sum(z.toll for z in self.tolls if z.layer == layer and z.covers(x, y))

    def via(self, c: int, r: int) -> bool:
        found = self._via.get((c, r))
        if found is None:
            x, y = c * GRID, r * GRID
            copper = Rect(x, y, x, y, self.rules.via_diameter / 2)
            hole = Rect(x, y, x, y, self.rules.via_drill / 2)
            found = self._via[(c, r)] = self.grid.hole_clear(hole) and all(
                self.grid.clear(layer, self.net, copper) for layer in range(len(LAYERS))
            )
        return found


def _biggest_piece(grid: Grid, search: _Search, zone: Zone, seeds: list[Cell]) -> set[Cell]:
    """The clear cells of the zone's area joined to the most pad cells: where its pour will
    surely be, all in one piece."""
    cells = {
        (zone.layer, c, r)
        for area in zone.areas
        for c in range(math.ceil(area.x0 / GRID), math.floor(area.x1 / GRID) + 1)
        for r in range(math.ceil(area.y0 / GRID), math.floor(area.y1 / GRID) + 1)
    }
    cells = {c for c in cells if search.track(c)}
    best: set[Cell] = set()
    best_score = -1
    seen: set[Cell] = set()
    seed_set = set(seeds)
    for start in sorted(cells):
        if start in seen:
            continue
        piece = {start}
        todo = [start]
        while todo:
            cell = todo.pop()
            layer, c, r = cell
            for dc, dr in _DIRECTIONS:
                nxt = (layer, c + dc, r + dr)
                if nxt in cells and nxt not in piece and search.step(cell, nxt):
                    piece.add(nxt)
                    todo.append(nxt)
        seen |= piece
        score = len(piece & seed_set) * 1000000 + len(piece)
        if score > best_score:
            best, best_score = piece, score
    return best


def _pad_cells(grid: Grid, pad: Pad, search: _Search) -> list[Cell]:
    shape = pad.shape
    cells = []
    for layer in pad.layers:
        for c in range(
            math.ceil((shape.x0 - shape.r) / GRID), math.floor((shape.x1 + shape.r) / GRID) + 1
        ):
            for r in range(
                math.ceil((shape.y0 - shape.r) / GRID), math.floor((shape.y1 + shape.r) / GRID) + 1
            ):
                if shape.distance(c * GRID, r * GRID) == 0 and search.track((layer, c, r)):
                    cells.append((layer, c, r))
    return cells


def _astar(
    grid: Grid, search: _Search, sources: Sequence[Cell], targets: set[Cell], rules: Rules
) -> list[Cell] | None:
    """The cheapest path from any source cell to any target cell."""
    if not sources or not targets:
        return None
    tc = [t[1] for t in targets]
    tr = [t[2] for t in targets]
    box = (min(tc), max(tc), min(tr), max(tr))

    def guess(c: int, r: int) -> float:
        return rules.greed * (max(box[0] - c, 0, c - box[1]) + max(box[2] - r, 0, r - box[3]))

    best: dict[tuple[int, int, int, int], float] = {}
    came: dict[tuple[int, int, int, int], tuple[int, int, int, int] | None] = {}
    heap: list[tuple[float, int, tuple[int, int, int, int]]] = []
    count = 0
    for layer, c, r in sources:
        state = (layer, c, r, -1)
        best[state] = 0.0
        came[state] = None
        heapq.heappush(heap, (guess(c, r), count, state))
        count += 1
    looked = 0
    while heap and looked < rules.expansions:
        looked += 1
        _f, _n, state = heapq.heappop(heap)
        layer, c, r, heading = state
        cost = best[state]
        if (layer, c, r) in targets:
            path: list[Cell] = []
            at: tuple[int, int, int, int] | None = state
            while at is not None:
                path.append(at[:3])
                at = came[at]
            return path[::-1]
        step = rules.back_cost if layer else 1.0
        moves: list[tuple[tuple[int, int, int, int], float]] = []
        for d, (dc, dr) in enumerate(_DIRECTIONS):
            cell = (layer, c + dc, r + dr)
            if search.step((layer, c, r), cell):
                turn = rules.turn_cost if heading not in (-1, d) else 0.0
                moves.append(((layer, c + dc, r + dr, d), step + turn + search.toll(*cell)))
        other = 1 - layer
        if search.track((other, c, r)) and search.via(c, r):
            moves.append(((other, c, r, -1), rules.via_cost))
        for nxt, extra in moves:
            total = cost + extra
            if total < best.get(nxt, math.inf):
                best[nxt] = total
                came[nxt] = state
                heapq.heappush(heap, (total + guess(nxt[1], nxt[2]), count, nxt))
                count += 1
    return None


def _simplify(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out = points[:2]
    for p in points[2:]:
        a, b = out[-2], out[-1]
        if (b[0] - a[0]) * (p[1] - b[1]) == (b[1] - a[1]) * (p[0] - b[0]):
            out[-1] = p
        else:
            out.append(p)
    return out


@dataclass(frozen=True, slots=True)
class Zone:
    """A copper pour of ``net`` on one layer over ``area``: pads in its biggest clear piece
    are joined by it, the others are routed to that piece. Other nets pay ``toll`` a step
    to cross it on that layer, so they drop to the other layer instead of cutting it."""

    net: str
    layer: int
    areas: tuple[Rect, ...]  # their union is the pour's outline
    toll: float = 10.0

    def covers(self, x: float, y: float) -> bool:
        return any(a.distance(x, y) == 0 for a in self.areas)


@dataclass(frozen=True, slots=True)
class Board:
    width: float
    height: float
    edge: float  # copper to outline
    pads: tuple[Pad, ...]
    keepouts: tuple[tuple[Rect, tuple[int, ...]], ...]
    widths: dict[str, float]  # net -> track width; "" for the rest
    zones: tuple[Zone, ...]
    fixed: tuple[Segment, ...] = ()  # tracks laid before the router starts
    fixed_vias: tuple[Via, ...] = ()


def route(board: Board, rules: Rules = Rules(), rounds: int = 4) -> Routed:
    """Tracks and vias joining the pads of each net: the nets without a pour shortest
    first, then the pours, the last one (the ground plane) last. After a round with nets
    left unjoined, those go first in the next."""
    poured = list(dict.fromkeys(z.net for z in board.zones))
    order = sorted(
        {p.net for p in board.pads if p.net} - set(poured), key=lambda n: (_span(board.pads, n), n)
    )
    order += poured
    result = Routed()
    for _round in range(rounds):
        result = _route_once(board, order, rules)
        failed = list(dict.fromkeys(net for net, _ref, _pad in result.failed))
        if not failed:
            break
        order = failed + [n for n in order if n not in failed]
    return result


def _span(pads: Sequence[Pad], net: str) -> float:
    xs = [p.shape.x0 for p in pads if p.net == net]
    ys = [p.shape.y0 for p in pads if p.net == net]
    return max(xs) - min(xs) + max(ys) - min(ys)


def _route_once(board: Board, order: list[str], rules: Rules) -> Routed:
    grid = Grid(board.width, board.height, board.edge, rules)
    pads = board.pads
    ids = {net: i + 1 for i, net in enumerate(sorted({p.net for p in pads if p.net}))}
    for rect, layers in board.keepouts:
        for layer in layers:
            grid.add(layer, _BLOCKED, rect)
    for pad in pads:
        for layer in pad.layers:
            grid.add(layer, ids[pad.net] if pad.net else _BLOCKED, pad.shape)
        if pad.hole:
            x, y = (pad.shape.x0 + pad.shape.x1) / 2, (pad.shape.y0 + pad.shape.y1) / 2
            grid.add_hole(Rect(x, y, x, y, pad.hole))
    zones = {z.net: z for z in board.zones}
    result = Routed(list(board.fixed), list(board.fixed_vias))
    laid = _lay_fixed(grid, board, ids, rules)
    for net in order:
        members = sorted((p for p in pads if p.net == net), key=lambda p: (p.shape.x0, p.shape.y0))
        if len(members) < 2:
            continue
        w = board.widths.get(net, board.widths[""])
        search = _Search(grid, ids[net], w, rules, [z for z in board.zones if z.net != net])
        zone = zones.get(net)
        if zone is not None:
            # The piece is found with a wide track: where that fits, KiCad's fill surely
            # reaches (its clearance and minimum width trim narrower necks).
            wide = _Search(grid, ids[net], max(w, 0.8), rules)
            tree = laid.get(net, set()) | _biggest_piece(
                grid, wide, zone, [c for p in members for c in _pad_cells(grid, p, search)]
            )
            rest = [p for p in members if not set(_pad_cells(grid, p, search)) & tree]
            if not tree:
                tree, rest = set(_pad_cells(grid, rest[0], search)), rest[1:]
            tree_points = [grid.point(next(iter(tree)))]
        else:
            tree = set(_pad_cells(grid, members[0], search))
            tree_points = [(members[0].shape.x0, members[0].shape.y0)]
            rest = members[1:]
        while rest:
            rest.sort(
                key=lambda p: min(abs(p.shape.x0 - x) + abs(p.shape.y0 - y) for x, y in tree_points)
            )
            pad = rest.pop(0)
            sources = _pad_cells(grid, pad, search)
            if set(sources) & tree:
                tree |= set(sources)
                continue
            path = _astar(grid, search, sources, tree, rules)
            if path is None:
                result.failed.append((net, pad.ref, pad.number))
                continue
            _lay(grid, ids[net], net, w, path, rules, result)
            tree |= set(path) | set(sources)
            tree_points.append((pad.shape.x0, pad.shape.y0))
    return result


def _lay_fixed(grid: Grid, board: Board, ids: dict[str, int], rules: Rules) -> dict[str, set[Cell]]:
    """Put the board's fixed tracks and vias on the grid; the cells they run through, by net."""
    laid: dict[str, set[Cell]] = {}
    for seg in board.fixed:
        layer = LAYERS.index(seg.layer)
        grid.add(layer, ids[seg.net], _segment_rect(seg.start, seg.end, seg.width / 2))
        steps = max(1, round(math.dist(seg.start, seg.end) / GRID))
        for k in range(steps + 1):
            x = seg.start[0] + (seg.end[0] - seg.start[0]) * k / steps
            y = seg.start[1] + (seg.end[1] - seg.start[1]) * k / steps
            laid.setdefault(seg.net, set()).add((layer, round(x / GRID), round(y / GRID)))
    for via in board.fixed_vias:
        x, y = via.at
        for layer in range(len(LAYERS)):
            grid.add(layer, ids[via.net], Rect(x, y, x, y, rules.via_diameter / 2))
        grid.add_hole(Rect(x, y, x, y, rules.via_drill / 2))
    return laid


def _lay(
    grid: Grid, net_id: int, net: str, width: float, path: list[Cell], rules: Rules, result: Routed
) -> None:
    runs: list[list[Cell]] = [[path[0]]]
    for cell in path[1:]:
        if cell[0] != runs[-1][-1][0]:
            at = grid.point(cell)
            result.vias.append(Via(at, net))
            for layer in range(len(LAYERS)):
                grid.add(layer, net_id, Rect(*at, *at, rules.via_diameter / 2))
            grid.add_hole(Rect(*at, *at, rules.via_drill / 2))
            runs.append([cell])
        else:
            runs[-1].append(cell)
    for run in runs:
        points = _simplify([grid.point(c) for c in run]) if len(run) > 1 else []
        for a, b in itertools.pairwise(points):
            result.segments.append(Segment(a, b, width, LAYERS[run[0][0]], net))
            grid.add(run[0][0], net_id, _segment_rect(a, b, width / 2))
