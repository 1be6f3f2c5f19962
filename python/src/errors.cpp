// python/src/errors.cpp — maxent::error and its subclasses as the Python exceptions maxent.Error,
// ConfigError (also a ValueError), ..., and the pickling refusal (a TypeError naming the class and
// what to do instead) set on every class of the module that cannot be pickled.
#include <exception>
#include <string>

#include "bind.hpp"
#include "maxent/core/error.hpp"

namespace maxent::python {

// ---------------------------------------------------------------------------------------
// Errors: maxent::error and its subclasses become maxent.Error and its subclasses, with the
// same message. Translators registered later are tried first, so bases come first.
// ---------------------------------------------------------------------------------------

void bind_errors(py::module_& m) {
    static py::exception<error> base(m, "Error", PyExc_RuntimeError);
    static py::exception<model_error> model(m, "ModelError", base.ptr());
    // ConfigError is also a ValueError (a bad argument), built with both bases; its class object
    // lives as long as the process (released, not destroyed after the interpreter).
    static const py::handle config = [&] {
        py::dict ns;
        ns["__module__"] = "maxent";
        ns["__doc__"] = "A setting or argument with a value the library refuses (also a ValueError).";
        py::object t = py::module_::import("builtins").attr("type")("ConfigError", py::make_tuple(base, py::handle(PyExc_ValueError)), ns);
        m.attr("ConfigError") = t;
        return t.release();
    }();
    static py::exception<unknown_label_error> label(m, "UnknownLabelError", base.ptr());
    static py::exception<zero_likelihood_error> zero(m, "ZeroLikelihoodError", base.ptr());
    static py::exception<budget_error> budget(m, "BudgetError", base.ptr());
    static py::exception<numeric_error> numeric(m, "NumericError", config.ptr());
    static py::exception<parse_error> parse(m, "ParseError", base.ptr());
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const numeric_error& e) {
            numeric(e.what());
        } catch (const config_error& e) {
            PyErr_SetString(config.ptr(), e.what());
        } catch (const model_error& e) {
            model(e.what());
        } catch (const unknown_label_error& e) {
            label(e.what());
        } catch (const zero_likelihood_error& e) {
            zero(e.what());
        } catch (const budget_error& e) {
            budget(e.what());
        } catch (const parse_error& e) {
            parse(e.what());
        } catch (const error& e) {
            base(e.what());
        }
    });
}

namespace {
/// Why an object of a class that has no pickling cannot be pickled, and what to do instead.
std::string pickling_hint(const std::string& name) {
    if (name == "ParticleFilter")
        return "its particles live in C++; build a new ParticleFilter from the world and the same settings";
    if (name == "BayesFilter" || name == "NoisyBelief" || name == "GenerativeView")
        return "pickle its model (.model) and build a new one from it";
    if (name == "ObservationFeaturePolicy" || name == "ObservationFeatures")
        return "the package maxent pickles it (import maxent, not maxent._core alone), unless its feature map is a "
               "Python callable: then save its parameters (a numpy array) and set them on a new policy";
    if (name == "TrajectoryView") return "it is valid only during the feedback call that received it";
    if (name == "Rng") return "build a new maxent.Rng from the seed";
    return "give its constructor's arguments (or its name) to the new process instead";
}
}  // namespace

void guard_pickling(py::module_& m) {
    const py::object newobj = py::module_::import("copyreg").attr("__newobj__");
    for (const auto item : m.attr("__dict__").cast<py::dict>()) {
        const py::handle cls = item.second;
        if (!PyType_Check(cls.ptr()) || py::detail::get_type_info(reinterpret_cast<PyTypeObject*>(cls.ptr())) == nullptr)
            continue;
        const py::dict own = cls.attr("__dict__").cast<py::dict>();
        if (own.contains("__reduce__")) continue;
        const std::string name = cls.attr("__name__").cast<std::string>();
        if (own.contains("__getstate__") && own.contains("__setstate__")) {
            // (copyreg.__newobj__, (cls,), state): cls.__new__(cls) then __setstate__(state), which
            // every protocol can express (protocol 0 and 1 as a call of copyreg.__newobj__).
            cls.attr("__reduce__") = py::cpp_function(
                [newobj](const py::object& self) {
                    return py::make_tuple(newobj, py::make_tuple(py::type::of(self)), self.attr("__getstate__")());
                },
                py::is_method(cls), py::name("__reduce__"));
        } else {
            cls.attr("__reduce__") = py::cpp_function(
                [name](const py::object&) -> py::object {
                    throw py::type_error(detail::message("cannot pickle 'maxent.", name, "' object: ", pickling_hint(name)));
                },
                py::is_method(cls), py::name("__reduce__"));
        }
    }
}

}  // namespace maxent::python
