// python/src/module.cpp — the module `maxent._core`: its docstring, and the bind_* function of
// every file in the order the classes must be registered (a class before the signatures that
// name it); the pickling refusal last, for every class that has no pickling of its own.
#include "bind.hpp"

PYBIND11_MODULE(_core, m) {
    using namespace maxent::python;
    m.doc() =
        "maxent: state entropy maximisation in POMDPs (Python bindings of the header-only C++ library).\n"
        "Models from numpy arrays, grid worlds and POMDP files; exact and noisy belief filters, learned belief\n"
        "models, particle filters of simulators written in Python; the policy classes, feedbacks, estimators\n"
        "and step rules; train(), the exact objective, evaluation, estimator quality and the paper's experiments.\n"
        "The compiled part of the package maxent (maxent/__init__.py re-exports it with the Python helpers).";
    m.attr("__version__") = "0.1.0";
    init_argument_checks();
    bind_errors(m);
    bind_components(m);
    bind_models(m);
    bind_train(m);
    bind_analysis(m);
    bind_sim_worlds(m);
    bind_features(m);
    bind_sim_train(m);
    bind_sequences(m);
    guard_pickling(m);
}
