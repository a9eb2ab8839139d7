#!/usr/bin/env python3
"""LIBSVM 3.37's `svm-train` and `svm-predict`, driven through the `libsvm-official` package.

The reference side of margin's differential suite (crates/margin-cli/tests/
libsvm_differential.rs). LIBSVM's command-line tools are not part of the PyPI package, only its
C library and a ctypes binding; this driver behaves as the two tools do, written from reading
svm-train.c and svm-predict.c of release 3.37: the same option parsing (C's atoi/atof), the same
data reader (strtok, strtod, strtol and what they refuse), the same printed lines and output
files. Everything the tools do through the C library (training, cross-validation, saving and
loading models, prediction, LIBSVM's own info() lines) is the C library's own code, called
through the binding; only the tools' thin shell is rewritten here. C's own strtod/strtol/atoi/
atof/snprintf are called through ctypes so that numbers are read and printed exactly as the
tools read and print them.

Usage:
  driver.py --version                      prints the installed libsvm-official version
  driver.py svm-train ARGS...              as LIBSVM's svm-train ARGS...
  driver.py svm-predict ARGS...            as LIBSVM's svm-predict ARGS...
  driver.py --batch JOBS RESULTS           runs many invocations in one process: JOBS holds one
                                           JSON object a line {"tool", "argv", "cwd", "stdout",
                                           "stderr"}; RESULTS gets one line a job, its exit code

The C library prints through its own stdout (fputs + fflush on file descriptor 1), so the
driver writes its own lines straight to file descriptor 1 as well (os.write), keeping both in
the order a user of the tools sees. In batch mode descriptors 1 and 2 are pointed at each job's
files in turn.
"""

import ctypes
import json
import math
import os
import sys
import traceback
from ctypes import POINTER, byref, c_char_p, c_double, c_int, c_long, c_void_p

# LIBSVM's tools, as its Makefile builds them, are single-threaded; the PyPI build of the
# library has OpenMP, whose reduction of the decision values (one-class and regression) sums in
# an order that depends on the threads. One thread sums in the tools' order. (libgomp reads
# this when the library loads, so before the import.)
os.environ["OMP_NUM_THREADS"] = "1"

from libsvm import svm as binding  # noqa: E402

LIB = binding.libsvm
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.strtod.restype = c_double
LIBC.strtod.argtypes = [c_void_p, POINTER(c_void_p)]
LIBC.strtol.restype = c_long
LIBC.strtol.argtypes = [c_void_p, POINTER(c_void_p), c_int]
LIBC.atoi.restype = c_int
LIBC.atoi.argtypes = [c_char_p]
LIBC.atof.restype = c_double
LIBC.atof.argtypes = [c_char_p]
LIBC.fflush.argtypes = [c_void_p]

C_SVC, NU_SVC, ONE_CLASS, EPSILON_SVR, NU_SVR = range(5)
PRECOMPUTED = 4


class Exit(Exception):
    """The tool ends with this exit code (C's exit())."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


def out(text):
    """Writes to the process's standard output, unbuffered (ordered with the C library's)."""
    os.write(1, text.encode())


def err(text):
    os.write(2, text.encode())


def cfmt(fmt, *args):
    """C's printf formatting of `args` (ints as int, floats as double): -nan, inf, %g exactly."""
    cargs = []
    for a in args:
        cargs.append(c_int(a) if isinstance(a, int) else c_double(a))
    buf = ctypes.create_string_buffer(512)
    LIBC.snprintf(buf, 512, fmt.encode(), *cargs)
    return buf.value.decode()


def cdiv(a, b):
    """a / b as C computes it on x86-64 (Python raises on a zero divisor)."""
    if b != 0:
        return a / b
    if a != a or a == 0:
        # The SSE default NaN has its sign bit set: glibc prints it as -nan.
        return -float("nan")
    return math.copysign(float("inf"), math.copysign(1.0, a) * math.copysign(1.0, b))


class CString:
    """A NUL-terminated byte string in C memory, walked as strtok walks it."""

    def __init__(self, data):
        nul = data.find(b"\0")
        if nul >= 0:
            data = data[:nul]
        self.data = data
        self.buf = ctypes.create_string_buffer(data)
        self.base = ctypes.addressof(self.buf)
        self.pos = 0  # strtok's saved pointer; None once the string is used up

    def strtok(self, delims):
        """C's strtok(NULL, delims) over this string (the first call included)."""
        if self.pos is None:
            return None
        n = len(self.data)
        i = self.pos
        while i < n and self.data[i] in delims:
            i += 1
        if i >= n:
            self.pos = None
            return None
        j = i
        while j < n and self.data[j] not in delims:
            j += 1
        # strtok writes a NUL over the delimiter; the token ends there.
        if j < n:
            self.buf[j] = b"\0"
            self.pos = j + 1
        else:
            self.pos = None
        return i

    def char_at(self, offset):
        """The byte at `offset` (NUL past a strtok cut or the end)."""
        if offset >= len(self.data):
            return 0
        return self.buf[offset][0]

    def strtod(self, start):
        """strtod(token): (value, end offset, errno)."""
        end = c_void_p()
        ctypes.set_errno(0)
        value = LIBC.strtod(self.base + start, byref(end))
        return value, end.value - self.base, ctypes.get_errno()

    def strtol(self, start):
        """(int) strtol(token, &end, 10): (value, end offset, errno)."""
        end = c_void_p()
        ctypes.set_errno(0)
        value = LIBC.strtol(self.base + start, byref(end), 10)
        errno = ctypes.get_errno()
        as_int = (value + 2**31) % 2**32 - 2**31
        return as_int, end.value - self.base, errno


def c_lines(path):
    """The lines fgets would give (each with its newline, the last maybe without)."""
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def is_space(byte):
    return byte in b" \t\n\v\f\r"


def read_instance(line, line_num):
    """One line as both tools read it: (label, [(index, value)]), or Exit(1) as they refuse it."""
    s = CString(line)
    label = s.strtok(b" \t\n")
    if label is None:
        raise input_error(line_num)
    y, end, _ = s.strtod(label)
    if end == label or s.char_at(end) != 0:
        raise input_error(line_num)
    nodes = []
    inst_max_index = -1
    while True:
        idx = s.strtok(b":")
        val = s.strtok(b" \t") if idx is not None else None
        if val is None:
            break
        index, end, errno = s.strtol(idx)
        if end == idx or errno != 0 or s.char_at(end) != 0 or index <= inst_max_index:
            raise input_error(line_num)
        inst_max_index = index
        value, end, errno = s.strtod(val)
        if end == val or errno != 0 or (s.char_at(end) != 0 and not is_space(s.char_at(end))):
            raise input_error(line_num)
        nodes.append((index, value))
    return y, nodes, inst_max_index


def input_error(line_num):
    err(cfmt("Wrong input format at line %d\n", line_num))
    return Exit(1)


def c_int_of(value):
    """(int) value as x86-64 converts it (out of range and NaN give INT_MIN)."""
    if value != value or not -(2**31) - 1 < value < 2**31:
        return -(2**31)
    return int(value)


def node_array(nodes):
    arr = (binding.svm_node * (len(nodes) + 1))()
    for k, (index, value) in enumerate(nodes):
        arr[k].index = index
        arr[k].value = value
    arr[len(nodes)].index = -1
    return arr


def train_help():
    out("Usage: svm-train [options] training_set_file [model_file]\n")
    return Exit(1)


def svm_train(argv):
    """LIBSVM 3.37's svm-train."""
    b = [os.fsencode(a) for a in argv]
    param = binding.svm_parameter()  # the binding's constructor sets svm-train's defaults
    param.gamma = 0
    cross_validation = False
    nr_fold = 0
    quiet = False
    labels, weights = [], []
    i = 0
    while i < len(b):
        if b[i][:1] != b"-":
            break
        i += 1
        if i >= len(b):
            raise train_help()
        flag = b[i - 1][1:2]
        value = b[i]
        if flag == b"s":
            param.svm_type = LIBC.atoi(value)
        elif flag == b"t":
            param.kernel_type = LIBC.atoi(value)
        elif flag == b"d":
            param.degree = LIBC.atoi(value)
        elif flag == b"g":
            param.gamma = LIBC.atof(value)
        elif flag == b"r":
            param.coef0 = LIBC.atof(value)
        elif flag == b"n":
            param.nu = LIBC.atof(value)
        elif flag == b"m":
            param.cache_size = LIBC.atof(value)
        elif flag == b"c":
            param.C = LIBC.atof(value)
        elif flag == b"e":
            param.eps = LIBC.atof(value)
        elif flag == b"p":
            param.p = LIBC.atof(value)
        elif flag == b"h":
            param.shrinking = LIBC.atoi(value)
        elif flag == b"b":
            param.probability = LIBC.atoi(value)
        elif flag == b"q":
            quiet = True
            i -= 1
        elif flag == b"v":
            cross_validation = True
            nr_fold = LIBC.atoi(value)
            if nr_fold < 2:
                err("n-fold cross validation: n must >= 2\n")
                raise train_help()
        elif flag == b"w":
            labels.append(LIBC.atoi(b[i - 1][2:]))
            weights.append(LIBC.atof(value))
        else:
            err("Unknown option: -%s\n" % flag.decode(errors="replace"))
            raise train_help()
        i += 1
    param.nr_weight = len(labels)
    param.weight_label = (c_int * len(labels))(*labels)
    param.weight = (c_double * len(weights))(*weights)
    if quiet:
        LIB.svm_set_print_string_function(binding.ctypes_print_null)
    else:
        LIB.svm_set_print_string_function(ctypes.cast(None, binding.PRINT_STRING_FUN))
    if i >= len(b):
        raise train_help()
    input_file = argv[i]
    if i < len(b) - 1:
        model_file = argv[i + 1]
    else:
        model_file = os.path.basename(input_file) + ".model"

    # read_problem
    try:
        lines = c_lines(input_file)
    except OSError:
        err("can't open input file %s\n" % input_file)
        raise Exit(1)
    ys, rows = [], []
    max_index = 0
    for n, line in enumerate(lines):
        y, nodes, inst_max_index = read_instance(line, n + 1)
        ys.append(y)
        rows.append(node_array(nodes))
        max_index = max(max_index, inst_max_index)
    if param.gamma == 0 and max_index > 0:
        param.gamma = 1.0 / max_index
    if param.kernel_type == PRECOMPUTED:
        for row in rows:
            if row[0].index != 0:
                err("Wrong input format: first column must be 0:sample_serial_number\n")
                raise Exit(1)
            serial = c_int_of(row[0].value)
            if serial <= 0 or serial > max_index:
                err("Wrong input format: sample_serial_number out of range\n")
                raise Exit(1)

    prob = binding.svm_problem([], [])
    prob.l = len(ys)
    prob.y = (c_double * len(ys))(*ys)
    prob.x = (POINTER(binding.svm_node) * len(rows))(
        *[ctypes.cast(r, POINTER(binding.svm_node)) for r in rows]
    )
    problem_memory = (rows, prob.y, prob.x)  # keeps the C arrays alive

    message = LIB.svm_check_parameter(prob, param)
    if message:
        err("ERROR: %s\n" % message.decode())
        raise Exit(1)

    if cross_validation:
        cross_validate(prob, param, nr_fold, ys)
    else:
        model = LIB.svm_train(prob, param)
        if LIB.svm_save_model(os.fsencode(model_file), model) != 0:
            err("can't save model to file %s\n" % model_file)
            raise Exit(1)
        LIB.svm_free_and_destroy_model(byref(model))
    del problem_memory
    return 0


def cross_validate(prob, param, nr_fold, ys):
    """svm-train's do_cross_validation."""
    l = len(ys)
    target = (c_double * l)()
    LIB.svm_cross_validation(prob, param, nr_fold, target)
    if param.svm_type in (EPSILON_SVR, NU_SVR):
        total_error = sumv = sumy = sumvv = sumyy = sumvy = 0.0
        for k in range(l):
            y, v = ys[k], target[k]
            total_error += (v - y) * (v - y)
            sumv += v
            sumy += y
            sumvv += v * v
            sumyy += y * y
            sumvy += v * y
        out(cfmt("Cross Validation Mean squared error = %g\n", cdiv(total_error, l)))
        num = (l * sumvy - sumv * sumy) * (l * sumvy - sumv * sumy)
        den = (l * sumvv - sumv * sumv) * (l * sumyy - sumy * sumy)
        out(cfmt("Cross Validation Squared correlation coefficient = %g\n", cdiv(num, den)))
    else:
        correct = sum(1 for k in range(l) if target[k] == ys[k])
        out(cfmt("Cross Validation Accuracy = %g%%\n", cdiv(100.0 * correct, l)))


def predict_help():
    out("Usage: svm-predict [options] test_file model_file output_file\n")
    return Exit(1)


def svm_predict(argv):
    """LIBSVM 3.37's svm-predict."""
    b = [os.fsencode(a) for a in argv]
    probability = 0
    quiet = False
    i = 0
    while i < len(b):
        if b[i][:1] != b"-":
            break
        i += 1
        flag = b[i - 1][1:2]
        if flag == b"b":
            if i >= len(b):
                raise predict_help()
            probability = LIBC.atoi(b[i])
        elif flag == b"q":
            quiet = True
            i -= 1
        else:
            err("Unknown option: -%s\n" % flag.decode(errors="replace"))
            raise predict_help()
        i += 1
    info = (lambda text: None) if quiet else out
    if i >= len(b) - 2:
        raise predict_help()
    test_file, model_file, output_file = argv[i], argv[i + 1], argv[i + 2]
    try:
        lines = c_lines(test_file)
    except OSError:
        err("can't open input file %s\n" % test_file)
        raise Exit(1)
    try:
        output = open(output_file, "w")
    except OSError:
        err("can't open output file %s\n" % output_file)
        raise Exit(1)
    with output:
        model = LIB.svm_load_model(os.fsencode(model_file))
        if not model:
            err("can't open model file %s\n" % model_file)
            raise Exit(1)
        try:
            if probability:
                if LIB.svm_check_probability_model(model) == 0:
                    err("Model does not support probabiliy estimates\n")
                    raise Exit(1)
            elif LIB.svm_check_probability_model(model) != 0:
                info("Model supports probability estimates, but disabled in prediction.\n")
            predict(model, lines, output, probability, info)
        finally:
            LIB.svm_free_and_destroy_model(byref(model))
    return 0


def predict(model, lines, output, probability, info):
    """svm-predict's predict(): the output file's lines and the closing summary."""
    svm_type = LIB.svm_get_svm_type(model)
    nr_class = LIB.svm_get_nr_class(model)
    estimates = (c_double * max(nr_class, 1))()
    if probability:
        if svm_type in (NU_SVR, EPSILON_SVR):
            info(
                cfmt(
                    "Prob. model for test data: target value = predicted value + z,\n"
                    "z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%g\n",
                    LIB.svm_get_svr_probability(model),
                )
            )
        elif svm_type == ONE_CLASS:
            output.write("label normal outlier\n")
        else:
            labels = (c_int * nr_class)()
            LIB.svm_get_labels(model, labels)
            output.write("labels" + "".join(cfmt(" %d", labels[j]) for j in range(nr_class)) + "\n")
    correct = total = 0
    error = sump = sumt = sumpp = sumtt = sumpt = 0.0
    for line in lines:
        try:
            target, nodes, _ = read_instance(line, total + 1)
        except Exit:
            output.flush()
            raise
        x = node_array(nodes)
        if probability and svm_type in (C_SVC, NU_SVC, ONE_CLASS):
            label = LIB.svm_predict_probability(model, x, estimates)
            text = cfmt("%g", label) + "".join(cfmt(" %g", estimates[j]) for j in range(nr_class))
            output.write(text + "\n")
        else:
            label = LIB.svm_predict(model, x)
            output.write(cfmt("%.17g\n", label))
        if label == target:
            correct += 1
        error += (label - target) * (label - target)
        sump += label
        sumt += target
        sumpp += label * label
        sumtt += target * target
        sumpt += label * target
        total += 1
    if svm_type in (NU_SVR, EPSILON_SVR):
        info(cfmt("Mean squared error = %g (regression)\n", cdiv(error, total)))
        num = (total * sumpt - sump * sumt) * (total * sumpt - sump * sumt)
        den = (total * sumpp - sump * sump) * (total * sumtt - sumt * sumt)
        info(cfmt("Squared correlation coefficient = %g (regression)\n", cdiv(num, den)))
    else:
        info(
            cfmt(
                "Accuracy = %g%% (%d/%d) (classification)\n",
                cdiv(float(correct), total) * 100,
                correct,
                total,
            )
        )


TOOLS = {"svm-train": svm_train, "svm-predict": svm_predict}


def run_tool(tool, argv):
    """Runs one tool; returns its exit code (and never lets an Exit escape)."""
    # Each run of a tool is a new process that never seeds rand(): glibc's sequence from seed 1
    # (LIBSVM draws its -v and -b 1 folds from it). A batch restarts that sequence every job.
    LIBC.srand(1)
    try:
        return TOOLS[tool](argv)
    except Exit as e:
        return e.code
    finally:
        LIBC.fflush(None)


def run_batch(jobs_path, results_path):
    """Runs every job of `jobs_path` in this process, each with its own stdout/stderr files."""
    saved_out, saved_err = os.dup(1), os.dup(2)
    home = os.getcwd()
    with open(jobs_path) as jobs, open(results_path, "w") as results:
        for text in jobs:
            if not text.strip():
                continue
            job = json.loads(text)
            sys.stdout.flush()
            LIBC.fflush(None)
            o = os.open(job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            e = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(o, 1)
            os.dup2(e, 2)
            os.close(o)
            os.close(e)
            try:
                os.chdir(job["cwd"])
                code = run_tool(job["tool"], job["argv"])
            except Exception:
                # A fault of this driver, not LIBSVM's behaviour: say so in the job's stderr.
                err("driver.py internal error:\n" + traceback.format_exc())
                code = 99
            finally:
                LIBC.fflush(None)
                os.dup2(saved_out, 1)
                os.dup2(saved_err, 2)
                os.chdir(home)
            results.write(json.dumps({"status": code}) + "\n")
            results.flush()
    return 0


def main(args):
    if args[:1] == ["--version"]:
        from importlib.metadata import version

        print(version("libsvm-official"))
        return 0
    if args[:1] == ["--batch"] and len(args) == 3:
        return run_batch(args[1], args[2])
    if args and args[0] in TOOLS:
        return run_tool(args[0], args[1:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
