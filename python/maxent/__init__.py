"""maxent: state entropy maximisation in POMDPs.

The compiled core (maxent._core, pybind11 bindings of the C++ library) re-exported, with
pure-Python helpers: pickling and copy.deepcopy of models, policies, step rules and training
results, Policy.save / Policy.load (.npz), a progress bar for train(progress=True), and plots of
a learning curve with its band and of a visitation heatmap (matplotlib), and GymWorld (a
Gymnasium-style environment as a simulator world).
"""
from . import _core
from ._core import *  # noqa: F401,F403  (every public name of the compiled module)
from ._core import __version__  # noqa: F401
from ._extras import (  # noqa: F401
    ProgressBar,
    evaluate,
    evaluate_uniform,
    learning_curve,
    load_policy,
    plot_heatmap,
    plot_learning_curve,
    read_study,
    save_policy,
    train,
    train_learned,
    visit_counts,
)
from ._gym import GymWorld  # noqa: F401

__doc__ = (__doc__ or "") + "\n" + (_core.__doc__ or "")
