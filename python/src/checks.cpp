// python/src/checks.cpp — checks and conversions of the module's arguments: the integer caster's
// numpy types, sizes against memory, real matrices from Python, the counting convention, the
// updater of a finite world, and the models a call releasing the GIL reads.
#include <cmath>
#include <cstdio>

#include "runtime/cli.hpp"  // physical_memory_bytes
#include "common.hpp"

namespace maxent::python {

std::vector<ModelInUse> models_in_use(const std::shared_ptr<PyModel>& world, const py::handle& updater) {
    std::vector<ModelInUse> out;
    if (world) out.emplace_back(world);
    if (py::isinstance<PyFilter>(updater)) out.emplace_back(updater.cast<PyFilter&>().agent);
    else if (py::isinstance<PyNoisy>(updater)) out.emplace_back(updater.cast<PyNoisy&>().inner->agent);
    return out;
}

void check_size(const char* what, std::size_t n, std::size_t bytes_each, std::size_t n_other) {
    // 2^46 bytes (64 TiB): more than any machine this runs on; the product is checked for overflow.
    // A zero factor needs no memory (and is the constructors' to refuse, naming it).
    constexpr std::size_t limit = std::size_t{1} << 46;
    const bool over = n != 0 && n_other != 0 && (n_other > limit / n || bytes_each > limit / (n * n_other));
    if (over)
        throw py::value_error(detail::message(what, " = ", n, n_other > 1 ? detail::message(" (x ", n_other, ")") : "",
                                              " is too large: it would need more than 2^46 bytes of memory"));
}

PyObject* numpy_bool_type = nullptr;
PyObject* masked_array_type = nullptr;

void init_argument_checks() {
    // Held for the life of the process, like the module's classes.
    numpy_bool_type = py::object(py::module_::import("numpy").attr("bool_")).release().ptr();
    masked_array_type = py::object(py::module_::import("numpy.ma").attr("MaskedArray")).release().ptr();
}

bool has_masked_entry(PyObject* x) {
    if (masked_array_type == nullptr || PyObject_IsInstance(x, masked_array_type) != 1) return false;
    static const py::handle getmaskarray = py::object(py::module_::import("numpy.ma").attr("getmaskarray")).release();
    return getmaskarray(py::handle(x)).attr("any")().cast<bool>();
}

void require_memory(const std::string& setting, const std::string& what, double bytes) {
    double have = programs::detail::physical_memory_bytes();  // the programs' reading of the machine
    if (have <= 0.0) have = static_cast<double>(std::uint64_t{1} << 46);
    if (!(bytes > have)) return;
    char msg[200];
    std::snprintf(msg, sizeof msg, " would take at least %.4g bytes (%.3g GiB) of memory, more than this machine's %.3g GiB",
                  bytes, bytes / 1073741824.0, have / 1073741824.0);
    throw config_error(detail::message(setting, ": ", what, msg));
}

Eigen::MatrixXd real_matrix(const py::handle& x, const std::string& who, Eigen::Index rows, Eigen::Index cols) {
    if (has_masked_entry(x.ptr()))
        throw config_error(detail::message(who, ": ", std::string(py::repr(x)),
                                           " is a masked array with masked entries (give the values: a plain array)"));
    py::object src = py::reinterpret_borrow<py::object>(x);
    if (masked_array_type != nullptr && PyObject_IsInstance(x.ptr(), masked_array_type) == 1) src = src.attr("data");
    const py::array a = py::module_::import("numpy").attr("asarray")(src);
    const char kind = a.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u')
        throw py::type_error(detail::message(who, ": an array of dtype ", std::string(py::str(a.dtype())),
                                             ", not of real numbers (ints or floats)"));
    auto shape_text = [&] {
        std::string t = "(";
        for (py::ssize_t i = 0; i < a.ndim(); ++i) t += std::to_string(a.shape(i)) + (a.ndim() == 1 ? "," : i + 1 < a.ndim() ? ", " : "");
        return t + ")";
    };
    const bool shape_ok = a.ndim() == 2 && (rows < 0 || a.shape(0) == rows) && (cols < 0 || a.shape(1) == cols);
    if (!shape_ok) {
        const std::string expected = rows >= 0 && cols >= 0 ? detail::message("a ", rows, " x ", cols, " array")
                                                             : std::string("a 2-d array");
        throw config_error(detail::message(who, ": expected ", expected, ", got an array of shape ", shape_text()));
    }
    const auto d = py::array_t<double, py::array::forcecast>::ensure(a);
    if (!d) throw py::error_already_set();
    const auto v = d.unchecked<2>();
    Eigen::MatrixXd out(v.shape(0), v.shape(1));
    for (py::ssize_t r = 0; r < v.shape(0); ++r)
        for (py::ssize_t c = 0; c < v.shape(1); ++c) {
            const double e = v(r, c);
            if (!std::isfinite(e))
                throw numeric_error(detail::message(who, ": entry [", r, ", ", c, "] is ", e, ", not finite"));
            out(r, c) = e;
        }
    return out;
}

Noisy finite_updater(const py::object& u, const std::shared_ptr<PyModel>& world, const char* who) {
    if (u.is_none()) return Noisy(Filter(*world->model), 0.0);
    if (py::isinstance<PyFilter>(u)) return Noisy(u.cast<PyFilter&>().filter, 0.0);
    if (py::isinstance<PyNoisy>(u)) return u.cast<PyNoisy&>().make();
    throw config_error(detail::message(who, ": the updater of a finite world must be a BayesFilter or a NoisyBelief "
                                       "(or None: the world's exact filter), got ",
                                       std::string(py::repr(u))));
}

StateCounting to_counting(const std::string& s) {
    if (s == "paper") return StateCounting::paper;
    if (s == "authors") return StateCounting::authors;
    throw config_error(detail::message("unknown counting '", s, "' (known: paper, authors)"));
}

}  // namespace maxent::python
