// python/src/sim_worlds.cpp — binds the simulators' classes: Rng (the generator a Python world's
// methods receive), GenerativeView (a finite model as a simulator) and ParticleFilter (of a Python
// world or a GenerativeView); the adapters themselves are in sim_worlds.hpp.
#include <cmath>

#include "sim_worlds.hpp"

namespace maxent::python {

namespace {

/// A Python world's num_state_bins as the particle filter's belief length (require_memory).
void world_bins_memory(std::size_t bins) {
    require_memory(detail::message("ParticleFilter: the world's num_state_bins = ", bins), "its belief vector",
                   8.0 * static_cast<double>(bins));
}

ParticleFilterOptions pf_options(std::size_t particles, double threshold, const std::string& entropy) {
    ParticleFilterOptions o;
    o.particles = particles;
    o.resample_threshold = threshold;
    if (entropy == "miller_madow" || entropy == "miller-madow") o.entropy = ParticleEntropy::miller_madow;
    else if (entropy != "plug_in" && entropy != "plug-in")
        throw config_error(detail::message("ParticleFilter: unknown entropy '", entropy, "' (known: plug_in, miller_madow)"));
    return o;
}

}  // namespace

/// The Python world a particle filter was built for, checked against the world given.
void check_filter_world(const PyParticleFilter& pf, const py::object& world, const char* who) {
    if (pf.view_filter)
        throw config_error(detail::message(who, ": the ParticleFilter was built for a GenerativeView, not a Python "
                                           "world"));
    const bool act = pf.act_filter.has_value();
    if (act != action_world(world))
        throw config_error(detail::message(who, ": the ParticleFilter was built for a world with ",
                                           act ? "continuous" : "index", " actions, and ", std::string(py::repr(world)),
                                           act ? " has index actions (no action_dim)" :
                                           " declares action_dim (continuous actions)"));
    if (act) return;
    const bool vec = pf.vec_filter.has_value();
    if (vec != vector_world(world))
        throw config_error(detail::message(who, ": the ParticleFilter was built for a world with ",
                                           vec ? "vector" : "index", " observations, and ",
                                           std::string(py::repr(world)), vec ? " observes indices" :
                                           " declares observation_dim (vectors)"));
}

void bind_sim_worlds(py::module_& m) {
    py::class_<PyRng>(m, "Rng",
        "The library's generator (xoshiro256++). A world's methods receive one: draw from it only, so a run is\n"
        "a pure function of its seed.")
        .def(py::init([](std::uint64_t seed, std::uint64_t run, std::uint64_t index) {
                 PyRng r;
                 r.own = stream(seed, run, index);
                 return r;
             }),
             py::arg("seed") = 0, py::arg("run") = 0, py::arg("index") = 0)
        .def("uniform", [](PyRng& r) {
            DefaultRng& g = r.get();
            return uniform01(g);
        }, "a uniform draw in [0, 1)")
        .def("normal", [](PyRng& r) {
            DefaultRng& g = r.get();
            return standard_normal(g);
        }, "a standard normal draw")
        .def("integers", [](PyRng& r, std::uint64_t n) {
            if (n == 0) throw config_error("Rng.integers: n must be >= 1, got 0");
            DefaultRng& g = r.get();
            return uniform_index(g, n);
        }, py::arg("n"), "a uniform index in [0, n)")
        .def("categorical", [](PyRng& r, const Eigen::VectorXd& p) {
            double total = 0.0;
            for (Eigen::Index i = 0; i < p.size(); ++i) {
                if (!std::isfinite(p[i]) || p[i] < 0.0)
                    throw py::value_error(detail::message("Rng.categorical: probabilities[", i, "] is ", p[i],
                                                          ", not a finite probability >= 0"));
                total += p[i];
            }
            if (!(std::abs(total - 1.0) <= 1e-6))
                throw py::value_error(detail::message("Rng.categorical: the probabilities sum to ", total,
                                                      ", not 1 (within 1e-6)"));
            DefaultRng& g = r.get();
            return sample_categorical(p, g);
        }, py::arg("probabilities"), "an index drawn with the given probabilities (inverse CDF)");

    py::class_<PyGenerativeView, std::shared_ptr<PyGenerativeView>>(m, "GenerativeView",
        "A finite model seen as a simulator (states are indices, binning the identity): the particle filter of\n"
        "a world whose exact filter is known, and the C++ side of the Python-world slowdown measurement.")
        .def(py::init([](std::shared_ptr<PyModel> model) {
                 auto v = std::make_shared<PyGenerativeView>();
                 v->view = std::make_shared<View>(*model->model);
                 v->model = std::move(model);
                 return v;
             }),
             py::arg("model"))
        .def_readonly("model", &PyGenerativeView::model);

    py::class_<PyParticleFilter, std::shared_ptr<PyParticleFilter>>(m, "ParticleFilter",
        "A bootstrap particle filter of a simulator (a Python world, or GenerativeView): the belief is the\n"
        "histogram of the weighted particles over `bins` bins of `binning(state)` (default: the world's\n"
        "state_bin; the identity for GenerativeView). b_1 is `particles` draws of the initial state from\n"
        "stream(seed, ~0). A world that declares observation_dim = d observes float vectors, weighed by\n"
        "observation_likelihood(a, o, s) or observation_log_likelihood(a, o, s) (o: a read-only float64 array).\n"
        "A world that declares action_dim = d (with action_low, action_high and observation_dim) has continuous\n"
        "actions: its methods receive a as a read-only float64 array of shape (d,).")
        .def(py::init([](const py::object& world, std::optional<std::size_t> bins, const py::object& binning,
                         std::size_t particles, double resample_threshold, const std::string& entropy,
                         std::uint64_t seed) {
                 check_size("particles", particles, 64);
                 require_memory(detail::message("ParticleFilter: particles = ", particles), "its particles and weights",
                                64.0 * static_cast<double>(particles));
                 if (bins)  // the belief (and each policy row over it) holds `bins` doubles
                     require_memory(detail::message("ParticleFilter: bins = ", *bins), "its belief vector",
                                    8.0 * static_cast<double>(*bins));
                 auto p = std::make_shared<PyParticleFilter>();
                 const ParticleFilterOptions o = pf_options(particles, resample_threshold, entropy);
                 DefaultRng g = stream(seed, ~std::uint64_t{0});
                 if (py::isinstance<PyGenerativeView>(world)) {
                     if (!binning.is_none())
                         throw config_error("ParticleFilter: a GenerativeView's particles are binned by state index "
                                            "(binning must be None)");
                     p->view = world.cast<std::shared_ptr<PyGenerativeView>>();
                     p->bins = bins.value_or(p->view->model->model->num_states());
                     p->view_filter.emplace(*p->view->view, p->bins, IdentityBinning{}, o, g);
                 } else if (action_world(world)) {
                     p->act_world = std::make_shared<PyActWorld>(world);
                     p->bins = bins.value_or(p->act_world->num_state_bins());
                     if (!bins) world_bins_memory(p->bins);
                     p->act_filter.emplace(*p->act_world, p->bins, py_binning(p->act_world, binning), o, g);
                 } else if (vector_world(world)) {
                     p->vec_world = std::make_shared<PyVecWorld>(world);
                     p->bins = bins.value_or(p->vec_world->num_state_bins());
                     if (!bins) world_bins_memory(p->bins);
                     p->vec_filter.emplace(*p->vec_world, p->bins, py_binning(p->vec_world, binning), o, g);
                 } else {
                     p->py_world = std::make_shared<PyWorld>(world);
                     p->bins = bins.value_or(p->py_world->num_state_bins());
                     if (!bins) world_bins_memory(p->bins);
                     p->py_filter.emplace(*p->py_world, p->bins, py_binning(p->py_world, binning), o, g);
                 }
                 return p;
             }),
             py::arg("world"), py::arg("bins") = py::none(), py::arg("binning") = py::none(),
             py::arg("particles") = 1000, py::arg("resample_threshold") = 0.5, py::arg("entropy") = "plug_in",
             py::arg("seed") = 0)
        .def_readonly("bins", &PyParticleFilter::bins)
        .def_property_readonly("dimension", [](const PyParticleFilter& p) { return p.bins; })
        .def("initial", [](PyParticleFilter& p) {
            const FilterInUse hold(p);
            Eigen::VectorXd b;
            if (p.py_filter) p.py_filter->initial(b);
            else if (p.vec_filter) p.vec_filter->initial(b);
            else if (p.act_filter) p.act_filter->initial(b);
            else p.view_filter->initial(b);
            return b;
        }, "b_1: the histogram of the initial particles");
}

}  // namespace maxent::python
