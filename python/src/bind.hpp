// python/src/bind.hpp — the bind_* function of each file, which module.cpp calls in this order,
// and the module-wide steps around them. Only pybind11.h: module.cpp and errors.cpp convert no
// arguments, so they skip common.hpp (the library and pybind11's numpy, Eigen and STL casters,
// half the compile time of a file); a file that converts arguments includes common.hpp, whose
// std::size_t caster every such file must see.
#pragma once

#include <pybind11/pybind11.h>

namespace maxent::python {

namespace py = pybind11;

void bind_errors(py::module_& m);      ///< errors.cpp: maxent.Error and its subclasses
void bind_components(py::module_& m);  ///< components.cpp: feedbacks, estimators, step rules
void bind_models(py::module_& m);      ///< models.cpp: models, filters, policies
void bind_train(py::module_& m);       ///< train.cpp: train, train_learned, the paper's experiments
void bind_analysis(py::module_& m);    ///< analysis.cpp: exact objective, estimator quality, evaluate
void bind_sim_worlds(py::module_& m);  ///< sim_worlds.cpp: Rng, GenerativeView, ParticleFilter
void bind_features(py::module_& m);    ///< features.cpp: observation features, ObservationFeaturePolicy
void bind_sim_train(py::module_& m);   ///< sim_train.cpp: _train_simulator
void bind_sequences(py::module_& m);   ///< sequences.cpp: filter_sequence (beliefs along a recorded sequence)

/// Looks up numpy.bool_ and numpy.ma.MaskedArray for the std::size_t caster (checks.cpp; first).
void init_argument_checks();
/// Sets __reduce__ on every class of the module that has none (errors.cpp; last): a class with
/// __getstate__ / __setstate__ (TrainResult) pickles through them under every protocol, every
/// other one raises TypeError naming it (the protocols 0 and 1 would otherwise build a bare
/// pybind11 instance and abort the interpreter). maxent/_extras.py replaces it for the classes
/// it pickles.
void guard_pickling(py::module_& m);

}  // namespace maxent::python
