"""The continuous view of one Qwen3 layer: depth is time, a residual is an explicit Euler step.

A pre-norm Qwen3 layer is two explicit Euler sub-steps with Δt = 1 (docs/continuous.md):
``h = x + A(x)`` then ``out = h + M(h)``, where ``A(u) = Attention(RMSNorm₁(u))`` and
``M(u) = MLP(RMSNorm₂(u))`` are the two *branches* (the norm sits inside the vector field).
This module gives

- :func:`depth_states`: the true states at t = 0, ½, 1 of a recorded trace and the exact partial
  Euler state inside each sub-step (E14), for the depth-time slider;
- :func:`substep_layer` and :func:`convergence`: the layer sub-stepped n times with Δt = 1/n,
  converging to the flow ``u' = A(u) + M(u)`` at first order, and a second-order scheme at
  second order (E13);
- :func:`rezero_layer`: the ReZero α view, identity at α = 0 and linear for small α (E15).

Every function takes the layer's ``intervention=`` (``engine.Intervention``) as ``run_layer``
does: heads and neurons switched off inside the branches, and a skipped branch is a zero
vector field (attention skipped: each step is a pure MLP step). All float64 numpy; no Qt.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from engine import ops
from engine._checks import readonly as _readonly
from engine._checks import real as _real
from engine.bounds import OVERFLOW
from engine.config import Qwen3Config
from engine.errors import EngineError, Phrase
from engine.fastpath import attention_sublayer, mlp_sublayer
from engine.intervention import Intervention, check_intervention
from engine.layer import LayerTrace, check_flag, check_input, check_weights
from engine.weights import LayerWeights

Scheme = Literal["euler", "heun", "strang"]
SCHEMES: tuple[str, ...] = ("euler", "heun", "strang")

def _check_finite_result(array: np.ndarray, what: str) -> np.ndarray:
    if not np.abs(array).max(initial=0.0) < OVERFLOW:
        raise EngineError("overflow_alpha", what=what)
    return array


# --------------------------------------------------------------------------------------------
# The two branches as functions of a state


class _Branches:
    """``A(u)`` and ``M(u)`` for one layer and one sequence length, fast enough to sweep.

    The same functions as ``run_layer`` (``engine.fastpath``'s ``attention_sublayer``,
    ``mlp_sublayer`` and ``ops``), so for a ``[T, D]`` state the branches reproduce its ``o_proj``
    and ``down_proj`` bit for bit (a test holds this). :func:`convergence` evaluates them about
    a thousand times on a toy-sized state, where numpy's per-call overhead, not arithmetic, is
    the cost: the RoPE tables are built once per T, q/k/v and gate/up are one matrix product
    each. A leading batch axis ``[B, T, D]`` advances several trajectories at once.

    Callers hold ``np.errstate(all="ignore")`` and check the result for overflow once.
    ``intervention``: as ``run_layer`` takes it; a skipped branch is the zero field (and
    :func:`_step_euler` leaves the state as it is, bit for bit, as the layer does).
    """

    def __init__(self, weights: LayerWeights, config: Qwen3Config, t: int,
                 causal: bool, intervention: Intervention | None = None) -> None:
        self.weights, self.config, self.t, self.causal = weights, config, t, causal
        self.eps = config.rms_norm_eps
        self.w_in = weights["input_layernorm.weight"]
        self.w_post = weights["post_attention_layernorm.weight"]
        iv = intervention or Intervention()
        self.skip_attention, self.skip_mlp = iv.skips("attention"), iv.skips("mlp")
        self.heads = iv.head_factors(config.num_attention_heads)
        self.neurons = iv.neurons()

    def attention(self, u: np.ndarray) -> np.ndarray:
        """``A(u) = o_proj(attention(RMSNorm₁(u)))`` for ``u [..., T, D]``."""
        if self.skip_attention:
            return np.zeros_like(u)
        normed = ops.rms_norm(u, self.w_in, self.eps)  # [..., T, D]
        return attention_sublayer(normed, self.weights, self.config, self.causal,
                                  heads=self.heads).output

    def mlp(self, u: np.ndarray) -> np.ndarray:
        """``M(u) = down_proj(SiLU(gate) ⊙ up)`` of ``RMSNorm₂(u)``, token by token."""
        if self.skip_mlp:
            return np.zeros_like(u)
        normed = ops.rms_norm(u, self.w_post, self.eps)  # [..., T, D]
        return mlp_sublayer(normed, self.weights, self.config, self.neurons).output

    def field(self, u: np.ndarray) -> np.ndarray:
        """The flow's right-hand side ``F(u) = A(u) + M(u)`` (both branches at the same u)."""
        return self.attention(u) + self.mlp(u)


def _prepare(x: object, weights: LayerWeights, config: Qwen3Config, causal: bool,
             intervention: object = None) -> tuple[np.ndarray, _Branches]:
    check_weights(weights, config)
    u = check_input(x, config)
    iv = check_intervention(intervention, config)
    if not np.abs(u).max() < OVERFLOW:  # RMSNorm would square it to Inf and quietly give 0
        raise EngineError("input_past_1e150")
    if config.rms_norm_eps == 0:
        # the first RMSNorm of a zero row is 0/0: say so, not "overflowed" after the NaN (a
        # square past 1e308 is Inf, not zero: that is reported as overflow later)
        with np.errstate(over="ignore"):
            squares = np.add.reduce(u * u, axis=-1)
        if not np.all(squares):
            raise EngineError("zero_row_rms")
    return u, _Branches(weights, config, u.shape[0], check_flag(causal, "causal"), iv)


def attention_branch(u: object, weights: LayerWeights, config: Qwen3Config,
                     causal: bool = True, *,
                     intervention: Intervention | None = None) -> np.ndarray:
    """``A(u) = Attention(RMSNorm₁(u))`` for a state ``u [T, D]``: the first sub-step's
    vector field. ``u + A(u)`` is ``run_layer``'s ``resid_attn`` (bit for bit; with the
    attention skipped A is zero and ``resid_attn`` is ``u`` itself)."""
    state, branches = _prepare(u, weights, config, causal, intervention)
    with np.errstate(all="ignore"):  # overflow is reported once, in words
        update = branches.attention(state)
    return _readonly(_check_finite_result(update, Phrase("the attention branch")))


def mlp_branch(u: object, weights: LayerWeights, config: Qwen3Config, *,
               intervention: Intervention | None = None) -> np.ndarray:
    """``M(u) = MLP(RMSNorm₂(u))`` for a state ``u [T, D]``: the second sub-step's vector field,
    acting on each token alone. ``h + M(h)`` is ``run_layer``'s output (bit for bit)."""
    # the MLP never looks across tokens
    state, branches = _prepare(u, weights, config, True, intervention)
    with np.errstate(all="ignore"):
        update = branches.mlp(state)
    return _readonly(_check_finite_result(update, Phrase("the MLP branch")))


# --------------------------------------------------------------------------------------------
# Depth-time states of a recorded trace


#: Elements of the temporary [t, T, D] block norm_curves computes at once (8 MB).
_NORM_CURVE_BLOCK = 1 << 20


@dataclass(frozen=True)
class DepthStates:
    """The residual stream of one layer as a function of depth time t ∈ [0, 1].

    ``states[0..2]`` are the true states at ``times = (0, ½, 1)``: embed, resid_attn, resid_mlp.
    Between them :meth:`at` returns the *exact* Euler state of step size s, ``x + s·A`` or
    ``h + s·M`` — the sub-step's end state with its branch scaled by s (the ReZero view),
    not a cosmetic blend; at t = ½ and t = 1 it is the true state, bit for bit.
    """

    times: tuple[float, float, float]
    states: np.ndarray  # [3, T, D]
    attn_update: np.ndarray  # [T, D]: A, the o_proj output (zero when the branch is skipped)
    mlp_update: np.ndarray  # [T, D]: M, the down_proj output (zero when skipped)
    #: the branches the trace's intervention skipped: their sub-step leaves u as it is
    skipped: tuple[str, ...] = ()

    @property
    def num_tokens(self) -> int:
        return self.states.shape[1]

    def sub_step(self, t: float) -> tuple[str, float]:
        """Which sub-step time t lies in and the Euler step size s ∈ [0, 1] taken in it so far.

        t ≤ ½ is the attention sub-step with s = 2t (t = ½ is its end, s = 1); otherwise the MLP
        sub-step with s = 2t − 1. Both products are exact in binary floating point.
        """
        t = _real(t, "depth time t")
        if not 0.0 <= t <= 1.0:
            raise EngineError("depth_t_range", t=t)
        if t <= 0.5:
            return "attention", 2.0 * t
        return "mlp", 2.0 * t - 1.0

    def at(self, t: float) -> np.ndarray:
        """The state u(t) ``[T, D]``: ``x + s·A`` for t ≤ ½, else ``h + s·M`` (E14 in
        docs/continuous.md); a skipped sub-step's state is its start, as the layer has it."""
        phase, s = self.sub_step(t)
        if phase in self.skipped:
            state = self.states[0 if phase == "attention" else 1].copy()
        elif phase == "attention":
            state = self.states[0] + s * self.attn_update
        else:
            state = self.states[1] + s * self.mlp_update
        return _readonly(state)

    def per_token_norms(self, t: float) -> np.ndarray:
        """‖u(t)‖ of each token's row ``[T]``: how far each token has been pushed so far."""
        return _readonly(np.linalg.norm(self.at(t), axis=-1))

    def norm_curves(self, n_points: int = 65) -> tuple[np.ndarray, np.ndarray]:
        """``(times [n_points], norms [n_points, T])`` on an even grid over [0, 1].

        ``n_points`` must be odd so the grid holds t = ½ exactly: the curves have a kink there
        (the sub-step changes), and a grid without it would cut the corner.
        """
        if (isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer))
                or n_points < 3 or n_points % 2 == 0):
            raise EngineError("n_points", value=n_points)
        n = int(n_points)
        # i / (n − 1), each correctly rounded, so the middle point is ½ exactly (linspace
        # misses it by an ulp for some n, 99 for one)
        times = np.arange(n) / (n - 1)
        # what at(t) computes for every t at once (the same products and sums, so the same
        # bits), in blocks of t that keep the [t, T, D] temporary small
        phases = [self.sub_step(float(t)) for t in times]  # the attention ones come first
        steps = np.array([s for _phase, s in phases])
        split = sum(phase == "attention" for phase, _s in phases)
        norms = np.empty((n, self.num_tokens))
        block = max(1, _NORM_CURVE_BLOCK // max(1, self.states[0].size))
        for first, last, base, update in ((0, split, self.states[0], self.attn_update),
                                          (split, n, self.states[1], self.mlp_update)):
            for a in range(first, last, block):
                b = min(a + block, last)
                norms[a:b] = np.linalg.norm(base + steps[a:b, None, None] * update, axis=-1)
        return _readonly(times), _readonly(norms)


def depth_states(trace: LayerTrace) -> DepthStates:
    """The depth-time states of a recorded layer; no recompute, just views of the trace.

    The trace's own intervention (``trace.intervention``) applies: a branch it skipped moves
    nothing (its update is zero, so u(t) stays at the sub-step's start)."""
    if not isinstance(trace, LayerTrace):
        raise EngineError("expected_trace", got=type(trace).__name__)
    states = np.stack([trace["embed"], trace["resid_attn"], trace["resid_mlp"]])  # [3, T, D]
    skipped = () if trace.intervention is None else trace.intervention.skip
    updates = [_readonly(np.zeros_like(trace[name])) if branch in skipped else trace[name]
               for name, branch in (("o_proj", "attention"), ("down_proj", "mlp"))]
    return DepthStates(times=(0.0, 0.5, 1.0), states=_readonly(states),
                       attn_update=updates[0], mlp_update=updates[1], skipped=skipped)


# --------------------------------------------------------------------------------------------
# Sub-stepping: the layer's continuous limit


def _check_scheme(scheme: object) -> str:
    if scheme not in SCHEMES:
        raise EngineError("one_of", name="scheme", choices=", ".join(SCHEMES), value=scheme)
    return str(scheme)


def _check_count(n: object, name: str = "n") -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise EngineError("whole_at_least", name=name, low=1, value=n)
    if n > 100_000:
        raise EngineError("substeps_max", name=name, n=n)
    return int(n)


def _step_euler(b: _Branches, u: np.ndarray, dt: np.ndarray | float) -> np.ndarray:
    """The layer's own form (Lie splitting, explicit Euler sub-steps): first order. A skipped
    branch leaves the state as it is (``u + 0`` would turn -0.0 into 0.0; the layer copies)."""
    h = u.copy() if b.skip_attention else u + dt * b.attention(u)
    return h.copy() if b.skip_mlp else h + dt * b.mlp(h)


def _step_heun(b: _Branches, u: np.ndarray, dt: np.ndarray | float) -> np.ndarray:
    """Heun (explicit trapezoid) on the whole field ``F = A + M``: second order."""
    k1 = b.field(u)
    k2 = b.field(u + dt * k1)
    return u + (0.5 * dt) * (k1 + k2)


def _midpoint(f: Callable[[np.ndarray], np.ndarray], u: np.ndarray,
              dt: np.ndarray | float) -> np.ndarray:
    return u + dt * f(u + (0.5 * dt) * f(u))


def _step_strang(b: _Branches, u: np.ndarray, dt: np.ndarray | float) -> np.ndarray:
    """Strang splitting: half a step of A, a step of M, half a step of A, each by the explicit
    midpoint rule. The same two branches as the layer, arranged symmetrically: second order."""
    u = _midpoint(b.attention, u, 0.5 * dt)
    u = _midpoint(b.mlp, u, dt)
    return _midpoint(b.attention, u, 0.5 * dt)


def _step_rk4(b: _Branches, u: np.ndarray, dt: np.ndarray | float) -> np.ndarray:
    """Classic fourth-order Runge–Kutta on ``F = A + M``: only for the reference flow."""
    k1 = b.field(u)
    k2 = b.field(u + (0.5 * dt) * k1)
    k3 = b.field(u + (0.5 * dt) * k2)
    k4 = b.field(u + dt * k3)
    return u + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


_STEPPERS: dict[str, Callable[[_Branches, np.ndarray, np.ndarray | float], np.ndarray]] = {
    "euler": _step_euler, "heun": _step_heun, "strang": _step_strang, "rk4": _step_rk4,
}


def _integrate(b: _Branches, x: np.ndarray, n: int, scheme: str) -> np.ndarray:
    step, dt, u = _STEPPERS[scheme], 1.0 / n, x
    with np.errstate(all="ignore"):  # overflow is reported once, by the caller
        for _ in range(n):
            u = step(b, u, dt)
    return u


def _pack_lanes(ns: Sequence[int]) -> list[list[int]]:
    """Group the runs (indices into ``ns``) into lanes that each fit in max(ns) steps.

    For ns = 1, 2, 4, …, 64 that is two lanes: [64] and [32, 16, 8, 4, 2, 1] (63 steps).
    """
    horizon, lanes, used = max(ns), [], []
    for i in sorted(range(len(ns)), key=lambda i: -ns[i]):
        for lane, steps in enumerate(used):
            if steps + ns[i] <= horizon:
                lanes[lane].append(i)
                used[lane] += ns[i]
                break
        else:
            lanes.append([i])
            used.append(ns[i])
    return lanes


def _integrate_many(b: _Branches, x: np.ndarray, ns: Sequence[int],
                    scheme: str) -> np.ndarray:
    """Integrate to t = 1 once for every n in ``ns``: ``[len(ns), T, D]``.

    The runs are packed into a few lanes that advance together as one ``[lanes, T, D]`` batch
    (a lane runs its runs back to back, restarting from x; an idle lane takes steps of size
    exactly 0, and ``u + 0·k`` is ``u``). At toy size a branch costs about the same for 1 to 4
    states (numpy's per-call overhead dominates), so ns = 1..64 costs 64 batched steps instead
    of 127 single ones. Each run takes the same operations as :func:`_integrate`.
    """
    horizon, lanes = max(ns), _pack_lanes(ns)
    size = np.zeros((len(lanes), horizon))  # step size of each lane at each tick
    finishes: list[list[tuple[int, int]]] = [[] for _ in range(horizon)]  # (lane, run)
    for lane, runs in enumerate(lanes):
        tick = 0
        for run in runs:
            size[lane, tick:tick + ns[run]] = 1.0 / ns[run]
            tick += ns[run]
            finishes[tick - 1].append((lane, run))
    step = _STEPPERS[scheme]
    out = np.empty((len(ns), *x.shape))
    u = np.repeat(x[None], len(lanes), axis=0)  # [lanes, T, D]
    with np.errstate(all="ignore"):  # overflow is reported once, by the caller
        for tick in range(horizon):
            u = step(b, u, size[:, tick, None, None])
            for lane, run in finishes[tick]:
                out[run] = u[lane]
                u[lane] = x  # the lane's next run starts again from u(0) = x
    return out


def substep_layer(x: object, weights: LayerWeights, config: Qwen3Config, n: int, *,
                  causal: bool = True, scheme: Scheme = "euler",
                  intervention: Intervention | None = None) -> np.ndarray:
    """The layer's two sub-steps repeated n times with Δt = 1/n (E13, docs/continuous.md).

    ``"euler"`` is the layer's own form, ``u ← u + Δt·A(u); u ← u + Δt·M(u)``; with n = 1 it *is*
    the layer (``run_layer``'s output, bit for bit). As n grows it approaches the flow
    ``u' = A(u) + M(u)`` from u(0) = x at first order. ``"heun"`` (on ``A + M``) and
    ``"strang"`` (half A, M, half A, each by the midpoint rule) approach it at second order.
    """
    u, branches = _prepare(x, weights, config, causal, intervention)
    out = _integrate(branches, u, _check_count(n), _check_scheme(scheme))
    return _readonly(_check_finite_result(out, Phrase("the sub-stepped layer")))


def rezero_layer(x: object, weights: LayerWeights, config: Qwen3Config, alpha: float, *,
                 causal: bool = True, intervention: Intervention | None = None) -> np.ndarray:
    """The ReZero view: ``h = x + α·A(x)``, ``out = h + α·M(h)`` (E15, docs/continuous.md).

    α = 0 is the identity, bit for bit; for small α the response ``(out − x)/α`` tends to
    ``A(x) + M(x)``, the flow's velocity at t = 0. α = 1 is the layer itself.
    """
    alpha = _real(alpha, "alpha")
    u, branches = _prepare(x, weights, config, causal, intervention)
    with np.errstate(all="ignore"):
        out = _step_euler(branches, u, alpha)
    return _readonly(_check_finite_result(out, Phrase("the ReZero layer")))


# --------------------------------------------------------------------------------------------
# Convergence to the flow


@dataclass(frozen=True)
class Convergence:
    """How the sub-stepped layer approaches its flow ``u' = A(u) + M(u)``, u(0) = x (E13).

    Distances are Frobenius norms of ``[T, D]`` differences. ``errors_*[i]`` is the distance
    from the result with ``ns[i]`` sub-steps to the flow at t = 1; ``distance_to_layer[i]`` is
    the Euler result's distance from the real layer (n = 1). ``reference_error`` estimates the
    reference flow's own error (RK4 at ``reference_steps`` vs half as many, Richardson), so a
    reader can see the errors above it are real.
    """

    ns: tuple[int, ...]
    second_order_scheme: str
    errors_euler: np.ndarray  # [K]
    errors_second_order: np.ndarray  # [K]
    distance_to_layer: np.ndarray  # [K]
    euler_outputs: np.ndarray  # [K, T, D]
    layer_output: np.ndarray  # [T, D]: n = 1, the real layer
    flow: np.ndarray  # [T, D]: the reference u(1)
    reference_steps: int
    reference_error: float

    @property
    def ratios_euler(self) -> np.ndarray:
        """``errors[i] / errors[i+1]``: ≈ 2 when n doubles at first order (NaN for 0/0, when
        the sub-steps hit the flow exactly, as in :attr:`orders_euler`)."""
        return _error_ratios(self.errors_euler)

    @property
    def ratios_second_order(self) -> np.ndarray:
        """The same for the second-order scheme: ≈ 4 when n doubles."""
        return _error_ratios(self.errors_second_order)

    @property
    def orders_euler(self) -> np.ndarray:
        """Observed order ``log(e_i / e_{i+1}) / log(n_{i+1} / n_i)``: ≈ 1."""
        return _observed_orders(self.ns, self.errors_euler)

    @property
    def orders_second_order(self) -> np.ndarray:
        """Observed order of the second-order scheme: ≈ 2."""
        return _observed_orders(self.ns, self.errors_second_order)

    @property
    def orders(self) -> dict[str, np.ndarray]:
        """Observed orders keyed by scheme name, e.g. ``{"euler": …, "heun": …}``."""
        return {"euler": self.orders_euler, self.second_order_scheme: self.orders_second_order}


def _error_ratios(errors: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):  # zero errors: Inf or NaN, no warning
        return _readonly(errors[:-1] / errors[1:])


def _observed_orders(ns: tuple[int, ...], errors: np.ndarray) -> np.ndarray:
    steps = np.log2(np.array(ns[1:], dtype=np.float64) / np.array(ns[:-1], dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        return _readonly(np.log2(errors[:-1] / errors[1:]) / steps)


#: RK4 steps for the reference flow. On the toy layer its error (~5e-7) is ~1/1000 of the
#: second-order scheme's at n = 64; ``Convergence.reference_error`` reports it for every input.
REFERENCE_STEPS = 32


def convergence(x: object, weights: LayerWeights, config: Qwen3Config,
                ns: Sequence[int] = (1, 2, 4, 8, 16, 32, 64), *, causal: bool = True,
                second_order: Scheme = "heun",
                intervention: Intervention | None = None) -> Convergence:
    """Sub-step the layer n times for each n in ``ns`` and measure the distance to the flow.

    E13 (docs/continuous.md): Euler's error halves as n doubles (ratio ≈ 2); the second-order
    scheme's drops by ≈ 4 (both only asymptotically: at n = 1, 2 the observed order is still
    off). The reference flow is RK4 with :data:`REFERENCE_STEPS` steps. ``ns`` must increase.
    The GUI plots this live, so the runs of each scheme advance together in a few batched
    lanes (see ``_integrate_many``): about 45 ms at the toy size, where 64 sequential
    sub-steps are the floor.
    """
    if isinstance(ns, (str, bytes)) or not isinstance(ns, Iterable):
        raise EngineError("ns_type", value=ns)
    ns = tuple(_check_count(n, Phrase("every n")) for n in ns)
    if not ns:
        raise EngineError("ns_empty")
    if any(b <= a for a, b in itertools.pairwise(ns)):
        raise EngineError("ns_order", ns=ns)
    if ns[-1] > 4096:
        raise EngineError("ns_max", n=ns[-1])
    second = _check_scheme(second_order)
    if second == "euler":
        raise EngineError("second_order")
    u, branches = _prepare(x, weights, config, causal, intervention)
    layer_output = _integrate(branches, u, 1, "euler")  # the real layer, as run_layer has it
    euler = _integrate_many(branches, u, ns, "euler")  # [K, T, D]
    higher = _integrate_many(branches, u, ns, second)  # [K, T, D]
    refs = _integrate_many(branches, u, (REFERENCE_STEPS // 2, REFERENCE_STEPS), "rk4")
    flow = refs[1]
    for array, what in ((euler, Phrase("Euler sub-stepping")), (higher, second),
                        (refs, Phrase("the flow"))):
        _check_finite_result(array, what)
    reference_error = float(np.linalg.norm(refs[1] - refs[0]) / 15.0)  # RK4: 2⁴ − 1

    def distances(outputs: np.ndarray, target: np.ndarray) -> np.ndarray:
        return _readonly(np.linalg.norm((outputs - target).reshape(len(ns), -1), axis=1))

    return Convergence(
        ns=ns, second_order_scheme=second,
        errors_euler=distances(euler, flow), errors_second_order=distances(higher, flow),
        distance_to_layer=distances(euler, layer_output), euler_outputs=_readonly(euler),
        layer_output=_readonly(layer_output), flow=_readonly(flow),
        reference_steps=REFERENCE_STEPS, reference_error=reference_error,
    )
