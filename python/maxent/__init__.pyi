# Type stubs of the package maxent (the compiled maxent._core and the helpers of _extras.py).
# Written by python/tools/make_stubs.py from the docstrings' signatures; Policy.save/load,
# pickling and the helpers by hand (EXTRAS there).
from os import PathLike
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union, overload

import numpy

__version__: str

class ActionBox:
    """The bounds of a continuous action: coordinate j lies in [lower[j], upper[j]] (finite, lower < upper).
A world with continuous actions declares action_dim = d, action_low and action_high (d numbers each);
ActionBox(world.action_low, world.action_high) is its box."""
    def __init__(self, lower: Any, upper: Any) -> None: ...
    @property
    def dimension(self) -> int:
        """d, the number of coordinates"""
        ...
    @property
    def lower(self) -> numpy.ndarray:
        """a copy"""
        ...
    @property
    def upper(self) -> numpy.ndarray:
        """a copy"""
        ...
    def __eq__(self, other: object) -> bool: ...

class BayesFilter:
    """The exact Bayes filter of an agent model (the world's, or a coarser or learned one)."""
    def __init__(self, model: Model, prior: Any = ...) -> None:
        """prior None: the paper's uniform b_1; 'model': the model's μ; or any probability vector."""
        ...
    @property
    def dimension(self) -> int: ...
    def initial(self) -> numpy.ndarray:
        """b_1"""
        ...
    @property
    def model(self) -> Model: ...
    def update(self, belief: numpy.ndarray, action: Any, observation: Any) -> numpy.ndarray:
        """b' ∝ Obs(o | ·, a) · Pᵀ b (ZeroLikelihoodError when o is impossible)"""
        ...

class Estimator:
    """A gradient estimator."""
    @property
    def name(self) -> str: ...
    @property
    def uses_steps(self) -> bool:
        """whether it needs per-step scores (the per-step baseline; not with TabularBeliefPolicy)"""
        ...

class Feedback:
    """A feedback F(τ): what multiplies the score in Algorithm 1."""
    def __call__(self, trajectory: TrajectoryView) -> float:
        """The feedback of a trajectory (inside another feedback's call)."""
        ...
    @property
    def name(self) -> str: ...
    @property
    def needs(self) -> dict: ...

class GaussianPolicy:
    """The policy of a world with continuous actions (action_dim = d): a Gaussian squashed into the box by tanh,
a_j = c_j + h_j tanh(u_j), u_j ~ N(μ_j, σ_j²) (c, h: the box's centres and half-widths), with inputs
x = (1, φ(b), ψ(o)): φ(b) the particle filter's belief (belief_features = its dimension, or 0 for none)
and ψ(o) an ObservationFeatures of the observation vector (or None). θ = [W | S] (F x 2d, F = len(x)):
μ_j = W_j·x; log σ_j = S[0, j] (state_dependent_std=False) or S_j·x. Initially W = 0 (the mean at the
box's centre) and S[0, :] = initial_log_std. train() returns it trained as result.policy; evaluate()
rolls it out, evaluate_uniform() the uniform policy of the box. Pickles, copies and saves (.npz) as
ObservationFeaturePolicy does."""
    def __init__(self, box: ActionBox, belief_features: int = ..., features: Any = ..., *, initial_log_std: float = ..., state_dependent_std: bool = ...) -> None: ...
    @property
    def action_dim(self) -> int: ...
    @property
    def belief_features(self) -> int: ...
    @property
    def box(self) -> ActionBox: ...
    @property
    def class_name(self) -> str: ...
    def copy(self) -> GaussianPolicy: ...
    @property
    def features(self) -> Any:
        """the ObservationFeatures ψ, or None"""
        ...
    @property
    def initial_log_std(self) -> float: ...
    def log_density(self, action: Any, belief: Any = ..., observation: Any = ...) -> float:
        """log π(a | x), the density on the box (-inf on its boundary; ConfigError outside it)"""
        ...
    def mean_and_std(self, belief: Any = ..., observation: Any = ...) -> tuple:
        """(μ, σ) of the Gaussian before squashing, given φ(b) (belief) and/or the observation"""
        ...
    @property
    def num_features(self) -> int:
        """F = 1 + belief_features + the dimension of features"""
        ...
    @property
    def parameters(self) -> numpy.ndarray:
        """θ = [W | S] (num_features x 2 action_dim); set from a 2-d array of that shape with finite entries"""
        ...
    @parameters.setter
    def parameters(self, value: numpy.ndarray) -> None: ...
    def sample(self, rng: Rng, belief: Any = ..., observation: Any = ...) -> tuple:
        """(a, ∇_θ log π(a | x)): an action drawn from rng (maxent.Rng) as a rollout draws it"""
        ...
    def score(self, action: Any, belief: Any = ..., observation: Any = ...) -> numpy.ndarray:
        """∇_θ log π(a | x), θ's shape (the action inside the box's interior)"""
        ...
    @property
    def state_dependent_std(self) -> bool: ...
    def save(self, path: Union[str, PathLike[str]]) -> str: ...
    @staticmethod
    def load(path: Union[str, PathLike[str]]) -> Union[Policy, ObservationFeaturePolicy, GaussianPolicy]: ...
    def __eq__(self, other: object) -> bool: ...

class GenerativeView:
    """A finite model seen as a simulator (states are indices, binning the identity): the particle filter of
a world whose exact filter is known, and the C++ side of the Python-world slowdown measurement."""
    def __init__(self, model: Model) -> None: ...
    @property
    def model(self) -> Model: ...

class Model:
    """A finite POMDP (S, A, O, P, Obs, T, μ). States, actions and observations are indices 0..n-1 with
labels (ints, strings or tuples): every argument that names one accepts its label or its index."""
    def __init__(self, transitions: numpy.ndarray, observations: numpy.ndarray, initial: numpy.ndarray, horizon: int, states: Optional[list] = ..., actions: Optional[list] = ..., observation_labels: Optional[list] = ..., tolerance: float = ..., initial_observation: Optional[numpy.ndarray] = ...) -> None:
        """transitions[a, s, s'] = P(s' | s, a); observations[s', o] = Obs(o | s') (shared) or
observations[a, s', o] (per action); initial[s] = μ(s); horizon T. Validated (ModelError naming the
matrix, row, column and value)."""
        ...
    def action_index(self, label: Any) -> int: ...
    @property
    def actions(self) -> list: ...
    @property
    def description(self) -> str:
        """what the model is: a grid's spec, 'POMDP file', or the sizes and matrices of a model from arrays"""
        ...
    @description.setter
    def description(self, value: str) -> None: ...
    @property
    def horizon(self) -> int:
        """T; refused (ConfigError) while a call running in another thread uses the model"""
        ...
    @horizon.setter
    def horizon(self, value: int) -> None: ...
    @property
    def initial_distribution(self) -> numpy.ndarray: ...
    @property
    def initial_observation_matrix(self) -> numpy.ndarray: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def num_observations(self) -> int: ...
    @property
    def num_states(self) -> int: ...
    @property
    def observation_depends_on_action(self) -> bool: ...
    def observation_index(self, label: Any) -> int: ...
    def observation_matrix(self, action: Any = ...) -> numpy.ndarray:
        """Obs(o | s', a) as an S x O array"""
        ...
    @property
    def observations(self) -> list: ...
    def state_index(self, label: Any) -> int: ...
    @property
    def states(self) -> list: ...
    @property
    def tolerance(self) -> float: ...
    def transition_matrix(self, action: Any) -> numpy.ndarray:
        """P(s' | s, a) as an S x S array"""
        ...

class NoisyBelief:
    """The noisy belief oracle (Figure 3): Gaussian noise of standard deviation sigma on every entry after
each exact update, clipped and renormalised. sigma = 0 is the exact filter, bit for bit."""
    def __init__(self, filter: BayesFilter, sigma: float) -> None: ...
    @property
    def dimension(self) -> int: ...
    @property
    def filter(self) -> BayesFilter: ...
    @property
    def sigma(self) -> float: ...
    def update(self, belief: numpy.ndarray, action: Any, observation: Any, seed: int = ...) -> numpy.ndarray:
        """One noisy update drawing from stream(seed)."""
        ...

class ObservationFeaturePolicy:
    """softmax(θᵀ ψ(o)) over a vector observation o (worlds that declare observation_dim), θ: F x A, zero at
the start. features: an ObservationFeatures, or a Python callable o -> float array with `dimension`
given. train() returns it trained as result.policy (θ: result.parameters). Pickles, copies and saves
(save / maxent.save_policy, .npz) with its feature map's arguments, except a map written in Python."""
    def __init__(self, features: Any, num_actions: int, dimension: Optional[int] = ...) -> None: ...
    @property
    def class_name(self) -> str: ...
    def copy(self) -> ObservationFeaturePolicy: ...
    @property
    def features(self) -> ObservationFeatures: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def num_features(self) -> int: ...
    @property
    def parameters(self) -> numpy.ndarray:
        """θ (features x actions); set from a 2-d array of that shape with finite entries (as Policy.parameters)"""
        ...
    @parameters.setter
    def parameters(self, value: numpy.ndarray) -> None: ...
    def probabilities(self, observation: Any) -> numpy.ndarray:
        """π(· | o) for a float vector o"""
        ...
    def save(self, path: Union[str, PathLike[str]]) -> str: ...
    @staticmethod
    def load(path: Union[str, PathLike[str]]) -> Union[Policy, ObservationFeaturePolicy, GaussianPolicy]: ...
    def __eq__(self, other: object) -> bool: ...

class ObservationFeatures:
    """A feature map ψ of a vector observation, for ObservationFeaturePolicy: RawObservationFeatures,
RbfObservationFeatures, ObservationTiles or UserObservationFeatures (a Python callable)."""
    def __call__(self, observation: Any) -> numpy.ndarray:
        """ψ(o)"""
        ...
    @property
    def arguments(self) -> dict:
        """the keyword arguments of `factory` that build it again (copies; `fn` itself for a
Python callable): what pickling and save write"""
        ...
    @property
    def dimension(self) -> int:
        """F, the number of features"""
        ...
    @property
    def factory(self) -> str:
        """the function of maxent that built it: RawObservationFeatures, RbfObservationFeatures,
ObservationTiles or UserObservationFeatures"""
        ...
    def __eq__(self, other: object) -> bool: ...

class ParticleFilter:
    """A bootstrap particle filter of a simulator (a Python world, or GenerativeView): the belief is the
histogram of the weighted particles over `bins` bins of `binning(state)` (default: the world's
state_bin; the identity for GenerativeView). b_1 is `particles` draws of the initial state from
stream(seed, ~0). A world that declares observation_dim = d observes float vectors, weighed by
observation_likelihood(a, o, s) or observation_log_likelihood(a, o, s) (o: a read-only float64 array).
A world that declares action_dim = d (with action_low, action_high and observation_dim) has continuous
actions: its methods receive a as a read-only float64 array of shape (d,)."""
    def __init__(self, world: Any, bins: Optional[int] = ..., binning: Any = ..., particles: int = ..., resample_threshold: float = ..., entropy: str = ..., seed: int = ...) -> None: ...
    @property
    def bins(self) -> int: ...
    @property
    def dimension(self) -> int: ...
    def initial(self) -> numpy.ndarray:
        """b_1: the histogram of the initial particles"""
        ...

class Policy:
    """A policy class with parameters θ (numpy array, settable)."""
    @property
    def class_name(self) -> str: ...
    def copy(self) -> Policy: ...
    @property
    def num_actions(self) -> int: ...
    @property
    def parameters(self) -> numpy.ndarray:
        """θ (rows x actions); set from a 2-d array of that shape with finite entries (a masked array only when
nothing is masked), else ConfigError naming the shape, NumericError naming the entry"""
        ...
    @parameters.setter
    def parameters(self, value: numpy.ndarray) -> None: ...
    def probabilities(self, belief: numpy.ndarray, observation: int = ..., step: int = ...) -> numpy.ndarray:
        """π(· | o, b): the action distribution (marginal over a believed state's draw)"""
        ...
    def save(self, path: Union[str, PathLike[str]]) -> str: ...
    @staticmethod
    def load(path: Union[str, PathLike[str]]) -> Policy: ...
    def __eq__(self, other: object) -> bool: ...

class Rng:
    """The library's generator (xoshiro256++). A world's methods receive one: draw from it only, so a run is
a pure function of its seed."""
    def __init__(self, seed: int = ..., run: int = ..., index: int = ...) -> None: ...
    def categorical(self, probabilities: numpy.ndarray) -> int:
        """an index drawn with the given probabilities (inverse CDF)"""
        ...
    def integers(self, n: int) -> int:
        """a uniform index in [0, n)"""
        ...
    def normal(self) -> float:
        """a standard normal draw"""
        ...
    def uniform(self) -> float:
        """a uniform draw in [0, 1)"""
        ...

class StepRule:
    """A step rule (gradient ascent)."""
    @property
    def alpha(self) -> float: ...
    @property
    def name(self) -> str: ...

class TrainResult:
    """One training run: θ and the per-iteration history as numpy arrays."""
    def __getstate__(self) -> tuple: ...
    def __setstate__(self, arg0: tuple) -> None: ...
    @property
    def belief_entropy_sum(self) -> numpy.ndarray: ...
    @property
    def belief_filter(self) -> Optional[BayesFilter]:
        """learned-belief runs: the agent's BayesFilter on belief_model, with the b_1 it trained with (else None)"""
        ...
    @property
    def belief_model(self) -> Optional[Model]:
        """learned-belief runs: the final learned model as the agent's Model over its latent states (else None)"""
        ...
    @property
    def feedback(self) -> numpy.ndarray: ...
    @property
    def fits(self) -> List[dict]:
        """learned-belief runs: every fit of the belief model"""
        ...
    @property
    def gradient_norm(self) -> numpy.ndarray: ...
    @property
    def heldout_episodes(self) -> list:
        """learned-belief runs: the held-out (actions, observations) episodes the fits were scored on"""
        ...
    @property
    def iterations(self) -> int: ...
    @property
    def parameters(self) -> numpy.ndarray: ...
    @property
    def policy(self) -> Union[Policy, ObservationFeaturePolicy, GaussianPolicy]:
        """a copy of the policy with the trained θ (an ObservationFeaturePolicy for one)"""
        ...
    @property
    def policy_class(self) -> str:
        """the trained policy's class name (policy.class_name; the repr shows it): 'ObservationPolicy', 'BeliefAveragedPolicy', 'BelievedStatePolicy', 'BeliefMixturePolicy', 'TabularBeliefPolicy', 'ObservationFeaturePolicy' or 'GaussianPolicy'"""
        ...
    @property
    def prior(self) -> Optional[str]:
        """learned-belief runs: the filter's b_1, 'learned' (the learned μ̂) or 'uniform' (else None)"""
        ...
    @property
    def seed(self) -> int: ...
    @property
    def selection(self) -> Optional[dict]:
        """train_learned with a learner that selects its size: what this run chose, a dict (learner, latent_states,
pseudo_count, smoothing, allocation, clones, candidates, max_latent_states); None otherwise"""
        ...
    @property
    def stopped_early(self) -> bool: ...
    @property
    def true_entropy(self) -> numpy.ndarray:
        """per iteration: the batch mean of H(d(τ_S)), what the paper plots"""
        ...
    def windowed_means(self, window: int, metric: str = ...) -> list:
        """The history in windows of `window` iterations, each with its mean and 95% interval."""
        ...

class TrajectoryView:
    """One episode as a feedback sees it (valid only during the feedback call)."""
    @property
    def actions(self) -> numpy.ndarray: ...
    @property
    def belief_dimension(self) -> int: ...
    @property
    def belief_entropy(self) -> numpy.ndarray: ...
    @property
    def beliefs(self) -> numpy.ndarray:
        """column k = b_{k+1} (if the feedback asked for beliefs)"""
        ...
    @property
    def believed(self) -> numpy.ndarray: ...
    @property
    def counted_believed(self) -> numpy.ndarray: ...
    @property
    def counted_observation_points(self) -> numpy.ndarray: ...
    @property
    def counted_observations(self) -> numpy.ndarray: ...
    @property
    def counted_state_points(self) -> numpy.ndarray: ...
    @property
    def counted_states(self) -> numpy.ndarray:
        """the true states the counting convention counts"""
        ...
    @property
    def counting(self) -> str: ...
    @property
    def horizon(self) -> int: ...
    @property
    def num_observations(self) -> int: ...
    @property
    def num_states(self) -> int: ...
    @property
    def observation_points(self) -> numpy.ndarray:
        """o_1 .. o_{K+1} as points (n x d; recorded for kNN MOE)"""
        ...
    @property
    def observations(self) -> numpy.ndarray: ...
    @property
    def state_points(self) -> numpy.ndarray:
        """s_1 .. s_{K+1} as points (n x d; recorded for kNN MSE)"""
        ...
    @property
    def states(self) -> numpy.ndarray:
        """s_1 .. s_{K+1} (true states, as bins)"""
        ...

class Error(RuntimeError): ...

class BudgetError(Error): ...

class ModelError(Error): ...

class ParseError(Error): ...

class UnknownLabelError(Error): ...

class ZeroLikelihoodError(Error): ...

class ConfigError(Error, ValueError): ...

class NumericError(ConfigError): ...

def Adam(alpha: float = ..., beta1: float = ..., beta2: float = ..., epsilon: float = ...) -> Any:
    """Adam (ascent); its moments decay at every parameter, every step"""
    ...
def BatchMeanBaseline() -> Estimator:
    """(1/N) Σ_n (F_n - F̄) g_n (the authors' figures; biased by (N-1)/N)"""
    ...
def BeliefAveragedPolicy(num_states: int, num_actions: int) -> Policy:
    """Class BA (the paper's): softmax(θᵀ b_t)."""
    ...
def BeliefMixturePolicy(num_states: int, num_actions: int) -> Policy:
    """Class BM: Σ_s b_t(s) softmax(θ_s)."""
    ...
def BelievedStatePolicy(num_states: int, num_actions: int) -> Policy:
    """Class S̃: s̃_t ~ b_t, softmax(θ[s̃_t])."""
    ...
def ConstantStep(alpha: float = ...) -> Any:
    """θ += α ĝ"""
    ...
def LazyAdam(alpha: float = ..., beta1: float = ..., beta2: float = ..., epsilon: float = ...) -> Any:
    """Adam on the rows with a non-zero gradient only (a skipped row does not move; its decays are caught
up when it is next updated): O(touched rows) per step on the trainer's row-sparse path; differs
from Adam once a row is skipped"""
    ...
def LeaveOneOutBaseline() -> Estimator:
    """(1/N) Σ_n (F_n - F̄_{-n}) g_n, the baseline from the other trajectories (unbiased)"""
    ...
def MBE() -> Feedback:
    """Entropy of believed states s̃_t ~ b_t."""
    ...
def MOE() -> Feedback:
    """Entropy of the trajectory's observations."""
    ...
def MOEKnn(k: int = ..., min_distance: Optional[float] = ...) -> Feedback:
    """'moe-knn': the k-nearest-neighbour entropy (nats) of the raw observation vectors (observation_dim);
ties as knn_entropy counts them (min_distance None: 1e-12 of the points' extent, 0: refused)."""
    ...
def MSE() -> Feedback:
    """Entropy of the trajectory's true states (bins)."""
    ...
def MSEKnn(k: int = ..., min_distance: Optional[float] = ...) -> Feedback:
    """'mse-knn': the k-nearest-neighbour entropy (nats) of the true states' points (a world's state_point);
ties as knn_entropy counts them (min_distance None: 1e-12 of the points' extent, 0: refused)."""
    ...
def ObservationPolicy(num_observations: int, num_actions: int) -> Policy:
    """Class O: softmax(θ[o_t])."""
    ...
def ObservationTiles(observation_dim: int, low: float, high: float, tiles: int, tilings: int = ...) -> ObservationFeatures:
    """Tile coding of [low, high]^d: `tilings` offset grids of `tiles` cells per axis, one 1 per tiling."""
    ...
def OptimalBaseline() -> Estimator:
    """per parameter, the variance-minimising baseline from the other trajectories (unbiased)"""
    ...
def PartitionEntropy(block_of_state: List[int]) -> Feedback:
    """Entropy of the true states mapped to blocks (e.g. rooms)."""
    ...
def PerStepBaseline() -> Estimator:
    """per step and parameter, the variance-minimising baseline from the other trajectories (unbiased);
records N x K per-step scores per iteration; not with TabularBeliefPolicy (no per-step scores)"""
    ...
def RawObservationFeatures(observation_dim: int) -> ObservationFeatures:
    """ψ(o) = (o_1, .., o_d, 1): the raw vector and a bias."""
    ...
def RbfObservationFeatures(centres: Any, width: float) -> ObservationFeatures:
    """ψ(o) = (exp(-|o - c_i|² / (2 width²)) for each row c_i of centres (a 2-d array, m x d: reshape(-1, 1)
for m centres of one coordinate, reshape(1, -1) for one centre), 1)."""
    ...
def RegMBE(rho: float = ...) -> Feedback:
    """MBE minus rho times the sum of belief entropies."""
    ...
def Reinforce() -> Estimator:
    """REINFORCE: (1/N) Σ_n F_n g_n (Algorithm 1 as printed)"""
    ...
def TabularBeliefPolicy(num_states: int, num_actions: int, tolerance: float = ...) -> Policy:
    """Class B: one softmax row per distinct belief, added on first visit."""
    ...
def UserFeedback(fn: Callable[..., Any], belief_entropy: bool = ..., believed_states: bool = ..., beliefs: bool = ..., name: Optional[str] = ..., state_points: bool = ..., observation_points: bool = ...) -> Feedback:
    """A feedback written in Python: fn(trajectory: TrajectoryView) -> float; say which extra records it reads."""
    ...
def UserObservationFeatures(fn: Callable[..., Any], dimension: int) -> ObservationFeatures:
    """ψ written in Python: fn(o) -> a float array of shape (dimension,), o a read-only float64 array."""
    ...
def estimator_quality(world: Model, policy: Policy, feedback: Any, estimators: Any, updater: Any = ..., *, batch: int = ..., repetitions: int = ..., seed: int = ..., threads: int = ..., counting: str = ..., max_leaves: int = ...) -> Any:
    """An estimator (or a list: compare_estimators) against the exact gradient, on the same batches
(trajectory n of repetition r draws from stream(seed, r, n)): bias, its standard error, covariance
trace, cosines, zero estimates, times. max_leaves: the exact gradient's enumeration budget (BudgetError
names the bound; raise it for a longer horizon at the cost of time)."""
    ...
def evaluate(world: Any, updater: Any, policy: Any, *, episodes: int = ..., seed: int = ..., threads: int = ..., counting: str = ..., knn_k: int = ..., knn_min_distance: Optional[float] = ...) -> dict:
    """The policy's mean true-state entropy, MOE, MBE and Σ_t H(b_t) over `episodes` episodes with 95%
intervals (episode n draws from stream(seed, evaluation_stream_run, n)). world: a Model (updater:
BayesFilter, NoisyBelief or None) or a simulator written in Python (updater: its ParticleFilter; run
on the calling thread; a GenerativeView is evaluated through its model). policy: a Policy (index
actions), an ObservationFeaturePolicy for a simulator with vector observations, or a GaussianPolicy
for a simulator with continuous actions (action_dim), built for the world's action box.

The dict: episodes; true_entropy (binned), observation_entropy, believed_entropy, belief_entropy_sum,
true_entropy_knn (each {mean, low, high, n}, or None when not computed: n would be 0) and the estimators used:
true_entropy_estimator ('binned'), observation_entropy_estimator ('binned' for index observations or a
world's bins, 'knn' for a simulator's raw observation vectors, 'none'), true_entropy_knn_estimator ('knn'
for a simulator with state_point(s), else 'none'), knn_k. kNN entropies are in nats (Kozachenko-Leonenko,
k = knn_k nearest neighbours; knn_k = 0: none). Repeated points (a robot that stays put at a wall) are
counted at a resolution: knn_min_distance None (the default) takes 1e-12 of each episode's point-cloud
diagonal (the scale rule: point sets without such ties are left exactly as the plain estimator has
them), a number > 0 that resolution, 0 refuses ties (NumericError). knn_rule names it ('scale',
'min_distance', 'refuse', or 'none' without kNN quantities), knn_resolution_low / knn_resolution_high
give the smallest and largest resolution applied, knn_floored how many points lay closer than it to
their k-th neighbour (summed over episodes). The keys are the same for every world and policy. A simulator
runs on one thread."""
    ...
def evaluate_uniform(world: Any, updater: Any = ..., *, episodes: int = ..., seed: int = ..., threads: int = ..., counting: str = ..., knn_k: int = ..., knn_min_distance: Optional[float] = ...) -> dict:
    """evaluate() for the uniformly random policy, on the same streams: the baseline (a simulator world
needs its ParticleFilter as the updater).

The dict: episodes; true_entropy (binned), observation_entropy, believed_entropy, belief_entropy_sum,
true_entropy_knn (each {mean, low, high, n}, or None when not computed: n would be 0) and the estimators used:
true_entropy_estimator ('binned'), observation_entropy_estimator ('binned' for index observations or a
world's bins, 'knn' for a simulator's raw observation vectors, 'none'), true_entropy_knn_estimator ('knn'
for a simulator with state_point(s), else 'none'), knn_k. kNN entropies are in nats (Kozachenko-Leonenko,
k = knn_k nearest neighbours; knn_k = 0: none). Repeated points (a robot that stays put at a wall) are
counted at a resolution: knn_min_distance None (the default) takes 1e-12 of each episode's point-cloud
diagonal (the scale rule: point sets without such ties are left exactly as the plain estimator has
them), a number > 0 that resolution, 0 refuses ties (NumericError). knn_rule names it ('scale',
'min_distance', 'refuse', or 'none' without kNN quantities), knn_resolution_low / knn_resolution_high
give the smallest and largest resolution applied, knn_floored how many points lay closer than it to
their k-th neighbour (summed over episodes). The keys are the same for every world and policy. A simulator
runs on one thread."""
    ...
def exact_objective(world: Model, policy: Policy, feedback: Any = ..., updater: Any = ..., *, counting: str = ..., max_leaves: int = ..., max_horizon: int = ...) -> dict:
    """J(θ) and ∇J(θ) exactly, by enumerating every trajectory of a tiny model: {'objective', 'gradient',
'leaves', 'leaf_bound', 'probability'}. BudgetError above max_leaves (a bound on the enumerated
trajectories) or max_horizon (the recursion's depth: raise it only with the stack to match)."""
    ...
def experiment_environment(name: str) -> Model:
    """The grid world of an experiment."""
    ...
def experiments() -> list:
    """The registry of the paper's experiments (maxent-paper --list)."""
    ...
def filter_sequence(model: Model, actions: Sequence[int], observations: Sequence[int], prior: Union[None, str, numpy.ndarray, Sequence[float]] = ..., *, first_observation: str = ...) -> Dict[str, Any]:
    """What a finite Model believes along one recorded sequence: actions a_1..a_K and observations o_1..o_T
(T = K + 1, indices, as uniform_episodes and read_sequences_csv give them). Returns a dict:
  beliefs: T x S array, row t-1 = b_t; log_likelihood: T values, entry t-1 = log P(o_t | the belief
  before o_t, a_{t-1}); prior: 'uniform', 'model', 'learned' or 'given' (which b before o_1 was used);
  prior_belief: that vector; first_observation: as given.
prior None: the paper's uniform b_1 for a known model, the learned μ̂ for a model fit_belief_model or
train_learned made (description 'learned belief model'); 'uniform'; 'model': the model's μ; or a vector.
first_observation 'not_filtered': b_1 = the prior, as the agent's filter holds it in a rollout (the paper
does not condition b_1 on o_1), then b_{t+1} = BayesFilter.update(b_t, a_t, o_{t+1}); 'filtered': b_1 ∝
prior · P(o_1 | s), the model's forward pass: from the model's μ, sum(log_likelihood) is
score_sequences(model, [(actions, observations)], per_observation=False) (to rounding).
ConfigError names the step and the value of an action or observation out of range; ZeroLikelihoodError
names the step of an observation the model cannot emit there."""
    ...
def fit_belief_model(sequences: Iterable, latent_states: int, num_actions: int, num_observations: int, horizon: int, smoothing: float = ..., restarts: int = ..., max_iterations: int = ..., tolerance: float = ..., seed: int = ..., threads: int = ..., heldout: Optional[Iterable] = ..., emission: str = ..., *, learner: str = ..., world: Optional[Model] = ..., clones: Any = ..., prior: Optional[dict] = ..., selection: Optional[dict] = ...) -> tuple:
    """An input-output HMM with `latent_states` states fitted by EM to (actions, observations) sequences;
returns (model, info): the agent's finite model over its latent states (for BayesFilter) and the fit's
log-likelihoods. learner (the C++ names; info['learner'], and info['given']: what it is given of the
world besides the logs):
  'em' plain EM; 'em-sparse' a sparse Dirichlet(0.1) prior on the transitions; 'em-spectral' restart 0
  from the spectral start (IohmmOptions::spectral); 'cloned-hmm' a cloned HMM (fit_cloned_hmm): clones=
  per-observation clone counts or a total split evenly (None: latent_states split evenly), transition
  pseudo-count 1e-3, at least 1000 EM steps; info['clones'];
  'em-known-motion', 'em-known-sensor': ORACLE ABLATIONS, given the true world= (a Model): its
  transitions (resp. emissions, with its emission model) are held fixed, and its number of states
  (latent_states 0 or S); refused without world=;
  'em-select', 'em-spectral-select', 'cloned-hmm-select': logs only, latent_states = 0: L (or the clone
  total and allocation) and the pseudo-count chosen on held-out sequences by the one-standard-error rule
  (select_iohmm / select_cloned_hmm), then refitted on all; selection= a dict of SelectionOptions
  (latent_states, max_latent_states, pseudo_counts, heldout_fraction, standard_errors, refit, split_seed =
  seed); info['candidates'] (a dict per candidate: latent_states, pseudo_count, allocation, clones,
  heldout_per_observation, ..., chosen) and info['chosen'] (its index).
prior= a dict of IohmmPrior (initial, transitions, emissions: Dirichlet concentrations c = 1 + pseudo-count;
floor) over the learner's."""
    ...
def grid_world(width: int, height: int, layout: str = ..., slip: float = ..., observation: str = ..., precision: Optional[float] = ..., variance: Optional[float] = ..., horizon: Optional[int] = ..., start: Tuple[int, int] = ...) -> Model:
    """A grid world (docs/reference.md, 'Grid worlds'): states (x, y), actions up/down/left/right,
observations identity | gaussian (precision k or the paper's variance 1/k) | room_id | side; T = S
unless given."""
    ...
def knn_entropy(points: Any, k: int = ..., min_distance: Optional[float] = ...) -> float:
    """The Kozachenko–Leonenko k-nearest-neighbour entropy (nats) of n points in R^d (an n x d array of real
numbers; n values: d = 1): the estimator of moe-knn, mse-knn and evaluate's kNN quantities. Ties (a
point with k others at distance 0): min_distance None (the default) counts them at 1e-12 of the points'
bounding-box diagonal (the scale rule; points without such ties get the plain estimate, bit for bit), a
number > 0 at that resolution (within [2^-511, 2^512)), 0 refuses them (NumericError naming both
points). ConfigError for k = 0 or k >= n; TypeError for complex, string or object arrays. Runs with the
GIL released; Ctrl-C interrupts it."""
    ...
def learned_belief_defaults() -> dict:
    """The one set of learned-belief defaults (C++ maxent::learned_belief_defaults) that train_learned,
fit_belief_model, run_experiment and maxent-paper use: smoothing, restarts and em_iterations of a
first fit, warmup, heldout, refit_every, refit_iterations, window and learned_prior (the filter's b_1)."""
    ...
def paper_environment(environment: str, slip: float = ..., variance: Optional[float] = ...) -> Model:
    """Environment i-iv of the paper's Section 6.1; i and ii need the observation variance (0.1 or 10)."""
    ...
def parse_pomdp(text: str, horizon: int = ..., empty_rows: str = ...) -> Model:
    """A model from POMDP-file text (options as read_pomdp_file)."""
    ...
def parse_sequences_csv(text: str, with_ids: bool = ...) -> list:
    """read_sequences_csv on CSV text."""
    ...
def read_pomdp_file(path: str, horizon: int = ..., empty_rows: str = ...) -> Model:
    """A model from a file in the POMDP file format (labels: the file's names); horizon 0 = S. empty_rows:
what to do with a state that has no transition probabilities under an action: 'error' (ParseError
naming file:line, the state and the action) or 'self-loop' (the state becomes absorbing under it),
as maxent-explore --empty-rows."""
    ...
def read_sequences_csv(path: str, with_ids: bool = ...) -> list:
    """Recorded (actions, observations) sequences from a CSV file (columns sequence,step,action,observation;
docs/reference.md): a list of (actions, observations) numpy pairs for fit_belief_model, or of
(id, actions, observations) with with_ids=True. ParseError naming file:line:column."""
    ...
def run_experiment(name: str, *, iterations: Optional[int] = ..., batch: Optional[int] = ..., seeds: Optional[List[int]] = ..., objectives: Optional[List[str]] = ..., noises: Optional[List[float]] = ..., policies: Optional[List[str]] = ..., learned: Optional[List[str]] = ..., estimator: Optional[str] = ..., step: Optional[str] = ..., alpha: Optional[float] = ..., rho: Optional[float] = ..., counting: Optional[str] = ..., latent_states: Optional[int] = ..., learning: Optional[dict] = ..., threads: int = ...) -> dict:
    """One of the paper's experiments by name (maxent-paper's registry: fig2a ... fig5b, nosim2b ..., room80),
with the same overrides as the program's flags (`learning`: a dict of the learned-belief flags,
{'latent_states', 'warmup', 'heldout', 'refit_every', 'refit_iterations', 'window', 'restarts',
'em_iterations', 'smoothing', 'learned_prior'}: --latent-states ... --learned-prior); returns {'curves': {label: {'true_entropy': seeds x K
array, 'feedback': ..., 'belief_entropy_sum': ...}}, ...}: the numbers maxent-paper writes to runs.csv.
Learned-belief curves ('learned-mbe', ...) train every policy class but B, as the program does."""
    ...
def score_sequences(model: Model, sequences: Iterable, *, per_observation: bool = ..., threads: int = ..., block_size: int = ...) -> float:
    """The log-likelihood of (actions, observations) sequences under a finite Model (the world's, a model
file's, or a learned one: TrainResult.belief_model, fit_belief_model's), per observation (or in total
with per_observation=False): the forward pass the learned-belief trainer scores its held-out episodes
with, so score_sequences(r.belief_model, r.heldout_episodes) is r.fits[-1]['heldout_log_likelihood'].
-inf when a sequence is impossible under the model; actions and observations are indices."""
    ...
def stream_seed(seed: int, run: int = ..., index: int = ...) -> int:
    """The seed of stream(seed, run, index)."""
    ...
def train(world: Any, updater: Any, policy: Policy, feedback: Any = ..., estimator: Any = ..., step: Any = ..., *, iterations: int = ..., batch: int = ..., seed: int = ..., seeds: Optional[List[int]] = ..., counting: str = ..., track_belief_entropy: bool = ..., threads: int = ..., progress: Any = ..., progress_every: int = ...) -> Any:
    """Algorithm 1: K iterations of N trajectories from the policy's θ. world: a Model (updater: BayesFilter,
NoisyBelief, or None for the world's exact filter) with any policy class, or a simulator (a Python object
with the sampling methods, or GenerativeView) with a ParticleFilter and an ObservationPolicy (over the
world's observations), BeliefAveragedPolicy, BelievedStatePolicy or BeliefMixturePolicy (over the
filter's bins); TabularBeliefPolicy is refused there (a particle filter's beliefs are random: the same
history gives a new belief, so its table would add a row at nearly every step). Returns a TrainResult,
or one per seed (run on `threads` threads, 0 = all) when `seeds` (distinct) is given. The GIL is released;
Ctrl-C raises KeyboardInterrupt. progress: fn(info: dict) after every `progress_every`-th iteration and
the last (seed, iteration, iterations and the metrics), or True (maxent.train: a one-line progress bar);
fn returns None or True (a bool or numpy.bool_) to go on, False to stop that run early (stopped_early);
any other return value is a TypeError naming it."""
    ...
def train_learned(world: Model, policy: Policy, feedback: Any = ..., estimator: Any = ..., step: Any = ..., *, latent_states: int = ..., warmup: int = ..., heldout: int = ..., refit_every: int = ..., refit_iterations: int = ..., window: int = ..., restarts: int = ..., em_iterations: int = ..., smoothing: float = ..., learned_prior: bool = ..., iterations: int = ..., batch: int = ..., seed: int = ..., seeds: Optional[List[int]] = ..., counting: str = ..., threads: int = ..., progress: Any = ..., progress_every: int = ..., learner: str = ..., select_max_states: Optional[int] = ...) -> Any:
    """Algorithm 1 without a simulator (Section 5): the agent's belief model is an IOHMM with `latent_states`
states (0 = the world's S) fitted to uniform warm-up episodes and refitted every `refit_every`
iterations; the world is touched only through actions and observations. The policy, as in maxent-paper:
ObservationPolicy(O, A) over the world's observations, or BeliefAveragedPolicy, BelievedStatePolicy or
BeliefMixturePolicy (L, A) over the L latent states; TabularBeliefPolicy (class B) is refused (its rows
are beliefs, which change meaning at every refit). The result's `fits` lists every fit; `belief_model`
and `belief_filter` are the final learned model and the agent's filter on it (b_1 = its μ̂ unless
learned_prior=False: the paper's uniform b_1; `prior` says which), so evaluate(world, r.belief_filter,
r.policy) evaluates the learned policy on fresh episodes; `heldout_episodes` are the episodes the fits'
held-out values score (score_sequences). Defaults: maxent.learned_belief_defaults(). Settings the
library refuses (LearnedBeliefOptions::validate, e.g. smoothing 0) are refused before any episode;
progress and progress_every as in train(). learner: how the model is learned, maxent-paper's --learners
(runtime learner_kinds): 'em', 'em-sparse', 'cloned-hmm' (L clones split evenly), the oracle ablations
'em-known-motion' / 'em-known-sensor' (given the world's transitions / emissions and L = its S), and
'em-select', 'em-spectral-select', 'cloned-hmm-select' (latent_states = 0): each run chooses L (or the
clone total and allocation) and the prior by held-out likelihood on a fifth of its own warm-up episodes,
doubling up to select_max_states (None: maxent-paper's default, --select-max-states), before its policy
is sized, exactly as maxent-paper's and maxent-explore's runs do (runtime select_learned_model_for_run);
a policy over the latent states is then made anew with the chosen L rows and θ = 0 (pass e.g.
BeliefAveragedPolicy(1, A); a θ other than 0 is refused), and the result's `selection` says what was
chosen (latent_states, pseudo_count, smoothing, allocation, clones, candidates). em-spectral is
fit_belief_model's only."""
    ...
def uniform_episodes(world: Model, episodes: int, seed: int = ..., counting: str = ...) -> list:
    """Episodes of uniformly random actions as (actions, observations) pairs; episode e draws from stream(seed, 0, e)."""
    ...

# --- pure-Python helpers (maxent/_extras.py) ---
def save_policy(policy: Union[Policy, ObservationFeaturePolicy, GaussianPolicy], path: Union[str, PathLike[str]]) -> str: ...
def load_policy(path: Union[str, PathLike[str]]) -> Union[Policy, ObservationFeaturePolicy, GaussianPolicy]: ...
class ProgressBar:
    def __init__(self, iterations: int, runs: int = ..., stream: Any = ..., interval: float = ..., label: str = ...) -> None: ...
    def __call__(self, info: Dict[str, Any]) -> bool: ...
    def close(self) -> None: ...
def visit_counts(world: Any, policy: Policy, updater: Any = ..., episodes: int = ..., seed: int = ..., counting: str = ...) -> numpy.ndarray: ...
def read_study(folder: Union[str, PathLike[str]]) -> Dict[str, Dict[str, Any]]: ...
def learning_curve(source: Any, metric: str = ..., label: Optional[str] = ...) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]: ...
def plot_learning_curve(source: Any, metric: str = ..., label: Optional[str] = ..., ax: Any = ..., smooth: int = ..., uniform: Any = ..., **line: Any) -> Any: ...
def plot_heatmap(source: Any, label: Optional[str] = ..., model: Optional[Model] = ..., ax: Any = ..., cmap: str = ...) -> Any: ...

# --- Gymnasium-style environments (maxent/_gym.py) ---
class GymWorld:
    """A Gymnasium-style environment (reset(seed=) -> (obs, info), step(a) -> (obs, reward, terminated,
truncated, info)) as a simulator world with vector observations; beliefs are refused (no likelihood)."""
    horizon: int
    num_actions: int
    num_state_bins: int
    observation_dim: int
    observation_shape: Tuple[int, ...]
    state_point_dim: int
    def __init__(self, env: Any, horizon: int, *, num_actions: Optional[int] = ..., action_of: Optional[Callable[[int], Any]] = ..., state_of: Optional[Callable[[Any], Any]] = ..., num_state_bins: Optional[int] = ..., state_bin: Optional[Callable[[Any], int]] = ..., observation_of: Optional[Callable[[Any], Any]] = ..., probe_seed: int = ...) -> None: ...
    @property
    def env(self) -> Any: ...
    def filter(self) -> ParticleFilter: ...
    def train(self, policy: ObservationFeaturePolicy, feedback: Any = ..., *args: Any, **kwargs: Any) -> Any: ...
    def evaluate(self, policy: ObservationFeaturePolicy, episodes: int = ..., seed: int = ..., *, counting: str = ..., knn_k: int = ..., knn_min_distance: Optional[float] = ...) -> dict: ...
    def evaluate_uniform(self, episodes: int = ..., seed: int = ..., *, counting: str = ..., knn_k: int = ..., knn_min_distance: Optional[float] = ...) -> dict: ...
    def sample_initial_state(self, rng: Rng) -> Any: ...
    def sample_initial_observation(self, s: Any, rng: Rng) -> numpy.ndarray: ...
    def sample_next_state(self, s: Any, a: int, rng: Rng) -> Any: ...
    def sample_observation(self, a: int, s: Any, rng: Rng) -> numpy.ndarray: ...
    def state_bin(self, s: Any) -> int: ...
    def state_point(self, s: Any) -> numpy.ndarray: ...
