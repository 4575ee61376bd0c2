/* Compiled copies of the pure-Python code a pick spends most of its time in. Each gives what
 * its Python reference gives, bit for bit; the Python runs where this could not be compiled.
 *
 * review_days: the days of a review's Hard, Good and Easy buttons (fuzz and load balancer).
 * The same arithmetic as studyapp/core/review_days.py (the reference, and what runs where
 * this could not be compiled), step for step: Anki's fuzz (rslib/src/scheduler/states/fuzz.rs)
 * and load balancer (load_balancer.rs) compute in f32, and every f32 rounding the Python code
 * makes with struct.pack is a cast to float here. Build with -ffp-contract=off: a fused
 * multiply-add would skip a rounding Anki makes. tests/test_review_days.py holds the two equal.
 *
 * In Python these days were about 60% of the four previews, where Anki spends a microsecond.
 *
 * first_block: the key and first ChaCha12 block of rand's StdRng::seed_from_u64, Anki's fuzz
 * numbers (studyapp/core/anki_random.py; tests/test_anki_random.py holds it to numbers the real
 * Anki drew). Python takes about 45 us a block one at a time, a few in batches of thousands.
 * fuzz_factor and learning_fuzz_secs take the one or two numbers a pick needs from that block
 * straight to a float or a delay: with the block handed to Python first, the review fuzz of an
 * item seen for the first time cost some 3 us of objects in a pick.
 *
 * deck_rows: a deck's sync rows (studyapp/core/models.py, _deck_view), the pass over every card
 * that the first session after a deck changed makes: a third of a microsecond a card in Python.
 *
 * item_rows: the store's rows made into ItemRow and ItemState objects (studyapp/store/
 * repository.py, _row_to_item): opening a session makes two objects for every review due, some
 * 2 us a row in Python (3.7 ms for the bench's 1,841 due reviews).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_LOAD_BALANCE_INTERVAL 90
#define LOAD_BALANCE_DAYS 99
#define EXACT_INT (1LL << 24)
#define U32_MAX 0xFFFFFFFFLL

static double f32(double value) { return (double)(float)value; }

/* Rust's f32::round then `as u32`: halves away from zero, saturating at 0 and u32::MAX. */
static int64_t rounded_u32(double value) {
    double rounded = value >= 0 ? floor(value + 0.5) : -floor(-value + 0.5);
    if (!(rounded > 0)) return 0;
    if (rounded >= (double)U32_MAX) return U32_MAX;
    return (int64_t)rounded;
}

static double F015, F01, F005, DELTA_7, DELTA_20, LARGEST_BELOW_ONE;

static double fuzz_delta(double interval) {
    if (interval < 2.5) return 0.0;
    if (interval > 20.0) return f32(DELTA_20 + f32(F005 * (interval - 20.0)));
    if (interval > 7.0) return f32(DELTA_7 + f32(F01 * (interval - 7.0)));
    return f32(1.0 + f32(F015 * (interval - 2.5)));
}

/* An int as Python's f32(float(n)) rounds it: to a double first, then to a float. */
static double int_f32(int64_t n) {
    if (-EXACT_INT <= n && n <= EXACT_INT) return (double)n;
    return f32((double)n);
}

static int64_t clamp(int64_t value, int64_t low, int64_t high) {
    if (value < low) value = low;
    if (value > high) value = high;
    return value;
}

static void constrained_fuzz_bounds(double interval, int64_t minimum, int64_t maximum, int64_t *lower,
                                    int64_t *upper) {
    if (minimum > maximum) minimum = maximum;
    double low = int_f32(minimum), high = int_f32(maximum);
    /* Python's max(interval, low) then min(.., high): the first argument unless the other is
       strictly beyond it (so a NaN interval stays NaN). */
    double clamped = low > interval ? low : interval;
    if (high < clamped) clamped = high;
    double delta = fuzz_delta(clamped);
    *lower = clamp(rounded_u32(f32(clamped - delta)), minimum, maximum);
    *upper = clamp(rounded_u32(f32(clamped + delta)), minimum, maximum);
    if (*upper == *lower && 2 < *upper && *upper < maximum) *upper = *lower + 1;
}

static int64_t with_review_fuzz(int has_factor, double factor, double interval, int64_t minimum, int64_t maximum) {
    if (!has_factor) return clamp(rounded_u32(interval), minimum, maximum);
    int64_t lower, upper;
    constrained_fuzz_bounds(interval, minimum, maximum, &lower, &upper);
    if (upper < EXACT_INT) {
        double days = floor(f32((double)lower + f32(factor * (double)(1 + upper - lower))));
        return days > 0 ? (int64_t)days : 0;
    }
    double days = floor(f32(int_f32(lower) + f32(factor * int_f32(1 + upper - lower))));
    if (!(days > 0)) return 0;
    return days >= (double)U32_MAX ? U32_MAX : (int64_t)days;
}

static int64_t minimum_review_fuzz_interval(double interval, int64_t previous, int64_t maximum) {
    if (rounded_u32(interval) > previous) return previous + 1;
    int64_t lower, upper;
    constrained_fuzz_bounds(interval, 1, maximum, &lower, &upper);
    return previous <= upper ? previous : 0;
}

static double day_weight(int64_t target, int64_t count) {
    if (count == 0) return 1.0;
    double count_weight = f32(pow(f32(1.0 / f32((double)count)), 2.15));
    double inverse = target ? f32(1.0 / f32((double)target)) : HUGE_VAL;
    double interval_weight = f32(f32(inverse * inverse) * inverse);
    return f32(count_weight * interval_weight);
}

static double next_float_down(double value) {
    float as_float = (float)value;
    uint32_t bits;  /* a positive float's bits; unsigned, so that no value can overflow */
    memcpy(&bits, &as_float, sizeof bits);
    bits -= 1;
    memcpy(&as_float, &bits, sizeof bits);
    return (double)as_float;
}

/* rand 0.9's WeightedIndex over f32 weights, sampled with ``unit`` (the generator's f32 in [0, 1)). */
static int64_t weighted_index(const double *weights, int64_t count, double unit) {
    double cumulative[LOAD_BALANCE_DAYS + 2];
    double total = weights[0];
    for (int64_t i = 1; i < count; i++) {
        cumulative[i - 1] = total;
        total = f32(total + weights[i]);
    }
    double scale = total;
    while (f32(scale * LARGEST_BELOW_ONE) >= total) scale = next_float_down(scale);
    double chosen = f32(unit * scale);
    int64_t index = 0;  /* bisect_right: how many cumulative weights are at most the draw */
    while (index < count - 1 && cumulative[index] <= chosen) index++;
    return index;
}

/* 1 with the balancer's day in *day, 0 where it leaves the day to the plain fuzz, -1 with a
 * Python error set. ``counts``: a list of 99 exact ints (read_fuzz_arguments checked it). */
static int balanced_interval(double interval, int64_t minimum, int64_t maximum, double unit, PyObject *counts,
                             int64_t *day) {
    if (interval >= (double)(MAX_LOAD_BALANCE_INTERVAL + 1) || minimum > MAX_LOAD_BALANCE_INTERVAL) return 0;
    int64_t before, after;
    constrained_fuzz_bounds(interval, minimum, maximum, &before, &after);
    if (after <= before) {  /* one day to weigh: the draw cannot move it */
        *day = before;
        return 1;
    }
    /* The interval is clamped to at most 91 days here, so its fuzz range is about 14 days; the
       check keeps the fixed arrays safe whatever the arguments. */
    int64_t days = after - before + 1;
    if (days < 2 || days > LOAD_BALANCE_DAYS + 2) {  /* (under 2 cannot happen: after > before) */
        PyErr_SetString(PyExc_ValueError, "fuzz range wider than the load balancer's window");
        return -1;
    }
    double weights[LOAD_BALANCE_DAYS + 2];
    for (int64_t i = 0; i < days; i++) {
        int64_t target = before + i, count = 0;
        if (0 <= target && target < LOAD_BALANCE_DAYS) {
            count = PyLong_AsLongLong(PyList_GET_ITEM(counts, target));
            if (count == -1 && PyErr_Occurred()) return -1;
        }
        weights[i] = day_weight(target, count);
    }
    *day = before + weighted_index(weights, days, unit);
    return 1;
}

/* One fuzzed day in *day: the load balancer's where it decides (counts given), else the plain
 * fuzz's; -1 with a Python error set, else 0. */
static int fuzzed(double interval, int64_t minimum, int64_t maximum, int has_factor, double factor,
                  PyObject *counts, int64_t *day) {
    if (counts != NULL) {
        int decided = balanced_interval(interval, minimum, maximum, factor, counts, day);
        if (decided != 0) return decided < 0 ? -1 : 0;
    }
    *day = with_review_fuzz(has_factor, factor, interval, minimum, maximum);
    return 0;
}

/* The factor and counts arguments as review_days and fuzzed_day take them; -1 with an error set. */
static int read_fuzz_arguments(PyObject *factor_arg, PyObject *counts_arg, int *has_factor, double *factor,
                               PyObject **counts) {
    *has_factor = factor_arg != Py_None;
    *factor = 0.0;
    if (*has_factor) {
        *factor = PyFloat_AsDouble(factor_arg);
        if (*factor == -1.0 && PyErr_Occurred()) return -1;
        if (!(*factor >= 0.0 && *factor < 1.0)) {  /* Anki's fuzz numbers are in [0, 1); NaN fails too */
            PyErr_SetString(PyExc_ValueError, "the fuzz factor must be in [0, 1)");
            return -1;
        }
    }
    *counts = counts_arg == Py_None ? NULL : counts_arg;
    if (*counts != NULL) {
        if (!*has_factor) {
            PyErr_SetString(PyExc_ValueError, "the load balancer draws with the fuzz number: give a factor");
            return -1;
        }
        if (!PyList_Check(*counts) || PyList_GET_SIZE(*counts) != LOAD_BALANCE_DAYS) {
            PyErr_SetString(PyExc_TypeError, "counts: a list of 99 due counts, or None");
            return -1;
        }
        /* Exact ints only: reading them then runs no Python code that could change the list. */
        for (Py_ssize_t i = 0; i < LOAD_BALANCE_DAYS; i++)
            if (!PyLong_CheckExact(PyList_GET_ITEM(*counts, i))) {
                PyErr_SetString(PyExc_TypeError, "counts: a list of 99 ints");
                return -1;
            }
    }
    return 0;
}

/* fuzzed_day(interval, minimum, maximum, factor, counts): a (re)learning card's graduating day
 * (scheduler _Context.fuzz), the days of review_days without their minimum. */
static PyObject *fuzzed_day(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "fuzzed_day(interval, minimum, maximum, factor, counts) takes 5 arguments");
        return NULL;
    }
    double interval = PyFloat_AsDouble(args[0]);
    if (interval == -1.0 && PyErr_Occurred()) return NULL;
    int64_t minimum = PyLong_AsLongLong(args[1]);
    if (minimum == -1 && PyErr_Occurred()) return NULL;
    int64_t maximum = PyLong_AsLongLong(args[2]);
    if (maximum == -1 && PyErr_Occurred()) return NULL;
    int has_factor;
    double factor;
    PyObject *counts;
    if (read_fuzz_arguments(args[3], args[4], &has_factor, &factor, &counts) < 0) return NULL;
    int64_t day;
    if (fuzzed(interval, minimum, maximum, has_factor, factor, counts, &day) < 0) return NULL;
    return PyLong_FromLongLong(day);
}

/* The three days from Python's arguments (previous, maximum, factor, counts) and the three
 * intervals; -1 with a Python error set, else 0. */
static int three_days(const double intervals[3], PyObject *const *args, int64_t days[3]) {
    int64_t previous = PyLong_AsLongLong(args[0]);
    if (previous == -1 && PyErr_Occurred()) return -1;
    int64_t maximum = PyLong_AsLongLong(args[1]);
    if (maximum == -1 && PyErr_Occurred()) return -1;
    int has_factor;
    double factor;
    PyObject *counts;
    if (read_fuzz_arguments(args[2], args[3], &has_factor, &factor, &counts) < 0) return -1;
    if (previous < 0) previous = 0;
    int64_t floor_days = 1;
    for (int i = 0; i < 3; i++) {
        double interval = intervals[i];
        int64_t minimum = clamp(minimum_review_fuzz_interval(interval, previous, maximum), floor_days, INT64_MAX);
        if (minimum > maximum) minimum = maximum;
        if (fuzzed(interval, minimum, maximum, has_factor, factor, counts, &days[i]) < 0) return -1;
        floor_days = days[i] + 1;
    }
    return 0;
}

static PyObject *review_days(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "review_days(hard, good, easy, previous, maximum, factor, counts) takes 7 arguments");
        return NULL;
    }
    double intervals[3];
    for (int i = 0; i < 3; i++) {
        intervals[i] = PyFloat_AsDouble(args[i]);
        if (intervals[i] == -1.0 && PyErr_Occurred()) return NULL;
    }
    int64_t days[3];
    if (three_days(intervals, args + 3, days) < 0) return NULL;
    return Py_BuildValue("(LLL)", (long long)days[0], (long long)days[1], (long long)days[2]);
}

/* The memory state as Anki stores it (storage/card/data.rs): f32 stability to 4 places,
 * difficulty to 3; scheduler._memories in Python. */
static double stored_memory(double value, double scale) {
    double scaled = f32(value * scale);
    double rounded = scaled >= 0 ? floor(scaled + 0.5) : -floor(-scaled + 0.5);
    return f32(rounded / scale);
}

static PyObject *NAME_AGAIN, *NAME_HARD, *NAME_GOOD, *NAME_EASY, *NAME_MEMORY, *NAME_STABILITY, *NAME_DIFFICULTY,
    *NAME_INTERVAL;

/* One button's (stability, difficulty) as stored, and its FSRS interval. */
static int read_button(PyObject *states, PyObject *name, double *stability, double *difficulty, double *interval) {
    PyObject *button = PyObject_GetAttr(states, name);
    if (button == NULL) return -1;
    PyObject *ivl = PyObject_GetAttr(button, NAME_INTERVAL);
    if (ivl == NULL) {
        Py_DECREF(button);
        return -1;
    }
    *interval = PyFloat_AsDouble(ivl);
    Py_DECREF(ivl);
    if (*interval == -1.0 && PyErr_Occurred()) {
        Py_DECREF(button);
        return -1;
    }
    PyObject *memory = PyObject_GetAttr(button, NAME_MEMORY);
    Py_DECREF(button);
    if (memory == NULL) return -1;
    double raw[2];
    PyObject *names[2] = {NAME_STABILITY, NAME_DIFFICULTY};
    for (int i = 0; i < 2; i++) {
        PyObject *value = PyObject_GetAttr(memory, names[i]);
        if (value == NULL) {
            Py_DECREF(memory);
            return -1;
        }
        raw[i] = PyFloat_AsDouble(value);
        Py_DECREF(value);
        if (raw[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(memory);
            return -1;
        }
    }
    Py_DECREF(memory);
    *stability = stored_memory(raw[0], 10000.0);
    *difficulty = stored_memory(raw[1], 1000.0);
    return 0;
}

/* review_numbers(states, previous, maximum, factor, counts): fsrs-rs's four next states read
 * once, as _review_previews needs them: the stored (stability, difficulty) of Again, Hard, Good
 * and Easy, then review_days of the last three's intervals. */
static PyObject *review_numbers(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "review_numbers(states, previous, maximum, factor, counts) takes 5 arguments");
        return NULL;
    }
    PyObject *names[4] = {NAME_AGAIN, NAME_HARD, NAME_GOOD, NAME_EASY};
    double memories[8], intervals[4];
    for (int i = 0; i < 4; i++)
        if (read_button(args[0], names[i], &memories[2 * i], &memories[2 * i + 1], &intervals[i]) < 0) return NULL;
    int64_t days[3];
    if (three_days(intervals + 1, args + 1, days) < 0) return NULL;
    return Py_BuildValue("(ddddddddLLL)", memories[0], memories[1], memories[2], memories[3], memories[4],
                         memories[5], memories[6], memories[7], (long long)days[0], (long long)days[1],
                         (long long)days[2]);
}

/* ---------------------------------------------------------------- rand's StdRng (ChaCha12) */

static uint32_t rotl32(uint32_t value, int shift) { return (value << shift) | (value >> (32 - shift)); }

#define QUARTER(a, b, c, d)                      \
    x[a] += x[b]; x[d] = rotl32(x[d] ^ x[a], 16); \
    x[c] += x[d]; x[b] = rotl32(x[b] ^ x[c], 12); \
    x[a] += x[b]; x[d] = rotl32(x[d] ^ x[a], 8);  \
    x[c] += x[d]; x[b] = rotl32(x[b] ^ x[c], 7);

/* rand's StdRng::seed_from_u64(seed): the ChaCha key (eight PCG32 outputs) and the first block. */
static void stdrng_first_block(uint64_t state, uint32_t key[8], uint32_t block[16]) {
    uint32_t x[16], start[16];
    for (int i = 0; i < 8; i++) {
        state = state * 6364136223846793005ULL + 11634580027462260723ULL;
        uint32_t xorshifted = (uint32_t)(((state >> 18) ^ state) >> 27);
        int rot = (int)(state >> 59);
        key[i] = (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
    }
    static const uint32_t sigma[4] = {0x61707865, 0x3320646E, 0x79622D32, 0x6B206574};
    for (int i = 0; i < 4; i++) start[i] = sigma[i];
    for (int i = 0; i < 8; i++) start[4 + i] = key[i];
    for (int i = 12; i < 16; i++) start[i] = 0;  /* counter 0, stream 0 */
    memcpy(x, start, sizeof x);
    for (int round = 0; round < 6; round++) {
        QUARTER(0, 4, 8, 12) QUARTER(1, 5, 9, 13) QUARTER(2, 6, 10, 14) QUARTER(3, 7, 11, 15)
        QUARTER(0, 5, 10, 15) QUARTER(1, 6, 11, 12) QUARTER(2, 7, 8, 13) QUARTER(3, 4, 9, 14)
    }
    for (int i = 0; i < 16; i++) block[i] = x[i] + start[i];
}

/* anki_random.fuzz_factor_python: the generator's first f32 in [0, 1), 23 mantissa bits. */
static PyObject *fuzz_factor(PyObject *module, PyObject *arg) {
    uint64_t seed = PyLong_AsUnsignedLongLongMask(arg);
    if (seed == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    uint32_t key[8], block[16];
    stdrng_first_block(seed, key, block);
    return PyFloat_FromDouble((double)(block[0] >> 9) / 8388608.0);
}

/* anki_random.learning_fuzz_secs_python: a step's delay plus up to a quarter, at most 300 s,
   drawn as rand's random_range over u32 (widening multiply, Canon's correction from the
   second word). Python's arithmetic is kept for any int64, however unlikely as a step. */
static PyObject *learning_fuzz_secs(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "learning_fuzz_secs(seed, secs) takes 2 arguments");
        return NULL;
    }
    uint64_t seed = PyLong_AsUnsignedLongLongMask(args[0]);
    if (seed == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    long long secs = PyLong_AsLongLong(args[1]);
    if (secs == -1 && PyErr_Occurred()) return NULL;
    if (secs <= 0) return PyLong_FromLongLong(secs);  /* a quarter of it truncates to no fuzz */
    /* (secs as f32) * 0.25, the f32 reached through a double as Python's struct does. */
    double quarter = secs <= (1LL << 24) ? (double)secs * 0.25 : (double)(float)(double)secs * 0.25;
    long long extra = (long long)(quarter < 300.0 ? quarter : 300.0);
    if (extra <= 0) return PyLong_FromLongLong(secs);
    uint32_t key[8], block[16];
    stdrng_first_block(seed, key, block);
    uint64_t span = (uint64_t)extra;
    uint64_t product = (uint64_t)block[0] * span;
    uint64_t result = product >> 32, low_order = product & 0xFFFFFFFFULL;
    if (low_order > ((0x100000000ULL - span) & 0xFFFFFFFFULL)) {
        uint64_t carry = ((uint64_t)block[1] * span) >> 32;
        if (low_order + carry > 0xFFFFFFFFULL) result += 1;
    }
    return PyLong_FromUnsignedLongLong(((uint64_t)secs + result) & 0xFFFFFFFFULL);
}

static PyObject *first_block(PyObject *module, PyObject *arg) {
    uint64_t state = PyLong_AsUnsignedLongLongMask(arg);
    if (state == (uint64_t)-1 && PyErr_Occurred()) return NULL;
    uint32_t key[8], block_words[16];
    stdrng_first_block(state, key, block_words);
    PyObject *key_words = PyTuple_New(8), *block = PyList_New(16);
    if (key_words == NULL || block == NULL) goto fail;
    for (int i = 0; i < 8; i++) {
        PyObject *word = PyLong_FromUnsignedLong(key[i]);
        if (word == NULL) goto fail;
        PyTuple_SET_ITEM(key_words, i, word);
    }
    for (int i = 0; i < 16; i++) {
        PyObject *word = PyLong_FromUnsignedLong(block_words[i]);
        if (word == NULL) goto fail;
        PyList_SET_ITEM(block, i, word);
    }
    PyObject *pair = PyTuple_Pack(2, key_words, block);
    Py_DECREF(key_words);
    Py_DECREF(block);
    return pair;
fail:
    Py_XDECREF(key_words);
    Py_XDECREF(block);
    return NULL;
}

/* ---------------------------------------------------------------- a deck's sync rows */

static PyObject *NAME_TYPE, *NAME_ID, *NAME_REVISION, *NAME_RELATED, *NAME_VARIANTS;

typedef struct {
    char *data;
    Py_ssize_t length, capacity;
} Buffer;

static int buffer_add(Buffer *buffer, const char *text, Py_ssize_t length) {
    if (buffer->length + length > buffer->capacity) {
        Py_ssize_t capacity = buffer->capacity * 2 + length + 256;
        char *grown = PyMem_Realloc(buffer->data, (size_t)capacity);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, text, (size_t)length);
    buffer->length += length;
    return 0;
}

static int buffer_add_str(Buffer *buffer, PyObject *text) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "expected a str, not %.100s", Py_TYPE(text)->tp_name);
        return -1;
    }
    Py_ssize_t length;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &length);
    return utf8 == NULL ? -1 : buffer_add(buffer, utf8, length);
}

/* A long long in decimal (snprintf's locale handling costs more than the rest of a row). */
static int format_decimal(char *out, long long number) {
    char reversed[24];
    int length = 0;
    unsigned long long magnitude = number < 0 ? 0ULL - (unsigned long long)number : (unsigned long long)number;
    do {
        reversed[length++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    int size = 0;
    if (number < 0) out[size++] = '-';
    while (length) out[size++] = reversed[--length];
    return size;
}

/* str(value), as the f-string writes it: plain decimal for an int. */
static int buffer_add_number(Buffer *buffer, PyObject *value) {
    if (PyLong_CheckExact(value)) {
        int overflow;
        long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (!overflow && !(number == -1 && PyErr_Occurred())) {
            char digits[24];
            return buffer_add(buffer, digits, format_decimal(digits, number));
        }
        PyErr_Clear();
    }
    PyObject *text = PyObject_Str(value);
    if (text == NULL) return -1;
    int result = buffer_add_str(buffer, text);
    Py_DECREF(text);
    return result;
}

static int add_row(Buffer *buffer, int first, PyObject *prefix, PyObject *card_id, PyObject *variant,
                   PyObject *revision, long long position) {
    char digits[24];
    int length = format_decimal(digits, position);
    if ((!first && buffer_add(buffer, "\x1e", 1) < 0) || buffer_add_str(buffer, prefix) < 0 ||
        buffer_add_str(buffer, card_id) < 0 || buffer_add(buffer, "/", 1) < 0 || buffer_add_str(buffer, variant) < 0 ||
        buffer_add(buffer, "\x1f", 1) < 0 || buffer_add_number(buffer, revision) < 0 ||
        buffer_add(buffer, "\x1f", 1) < 0 || buffer_add(buffer, digits, length) < 0)
        return -1;
    return 0;
}

/* Where the instances of a class keep four attributes: the offsets of their slots when the class
   reads each through a plain slot (a dataclass with slots=True, as models.Card), else -1 for the
   attribute, read with PyObject_GetAttr. A pass over 100,000 cards read 400,000 attributes: the
   generic look-up (the type's descriptor, then its getter) was a third of the pass. */
typedef struct {
    PyTypeObject *type;
    Py_ssize_t offsets[4];
} SlotOffsets;

static void find_slot_offsets(SlotOffsets *found, PyTypeObject *type, PyObject *const names[4]) {
    found->type = type;
    for (int i = 0; i < 4; i++) {
        found->offsets[i] = -1;
        if (type->tp_getattro != PyObject_GenericGetAttr) continue;  /* __getattribute__ or __getattr__ of its own */
        PyObject *descriptor = _PyType_Lookup(type, names[i]);  /* borrowed; sets no error */
        if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type)) continue;
        PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READ_RESTRICTED)) found->offsets[i] = member->offset;
    }
}

/* A new reference to the attribute, as PyObject_GetAttr would give it. */
static PyObject *read_attribute(PyObject *object, const SlotOffsets *slots, int index, PyObject *name) {
    if (Py_TYPE(object) == slots->type && slots->offsets[index] >= 0) {
        PyObject *value = *(PyObject **)((char *)object + slots->offsets[index]);
        if (value != NULL) return Py_NewRef(value);  /* (an empty slot: GetAttr raises its AttributeError) */
    }
    return PyObject_GetAttr(object, name);
}

static PyObject *deck_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "deck_rows(cards, prefix, main, multi_variant_types, slots) takes 5 arguments");
        return NULL;
    }
    /* Tuples, not borrowed items of a list that Python code run here (a property) could change. */
    PyObject *cards = PySequence_Tuple(args[0]);
    if (cards == NULL) return NULL;
    PyObject *prefix = args[1], *main_variant = args[2], *multi = args[3];
    long long slots = PyLong_AsLongLong(args[4]);
    if (slots == -1 && PyErr_Occurred()) {
        Py_DECREF(cards);
        return NULL;
    }
    Buffer buffer = {NULL, 0, 0};
    int linked = 0, first = 1;
    long long position = 0;
    Py_ssize_t count = PyTuple_GET_SIZE(cards);
    PyObject *type = NULL, *card_id = NULL, *revision = NULL, *related = NULL, *variants = NULL;
    PyObject *const names[4] = {NAME_TYPE, NAME_ID, NAME_REVISION, NAME_RELATED};
    SlotOffsets card_slots = {NULL, {-1, -1, -1, -1}};
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *card = PyTuple_GET_ITEM(cards, i);
        if (Py_TYPE(card) != card_slots.type) find_slot_offsets(&card_slots, Py_TYPE(card), names);
        if ((type = read_attribute(card, &card_slots, 0, NAME_TYPE)) == NULL) goto fail;
        if ((card_id = read_attribute(card, &card_slots, 1, NAME_ID)) == NULL) goto fail;
        if ((revision = read_attribute(card, &card_slots, 2, NAME_REVISION)) == NULL) goto fail;
        int multiple = PySequence_Contains(multi, type);
        if (multiple < 0) goto fail;
        if (multiple) {
            PyObject *listed = PyObject_CallMethodNoArgs(card, NAME_VARIANTS);
            if (listed == NULL) goto fail;
            variants = PySequence_Tuple(listed);
            Py_DECREF(listed);
            if (variants == NULL) goto fail;
            Py_ssize_t n = PyTuple_GET_SIZE(variants);
            for (Py_ssize_t index = 0; index < n; index++) {
                if (add_row(&buffer, first, prefix, card_id, PyTuple_GET_ITEM(variants, index), revision,
                            position + index) < 0)
                    goto fail;
                first = 0;
            }
            Py_CLEAR(variants);
        } else {
            if (add_row(&buffer, first, prefix, card_id, main_variant, revision, position) < 0) goto fail;
            first = 0;
        }
        if ((related = read_attribute(card, &card_slots, 3, NAME_RELATED)) == NULL) goto fail;
        int truth = PyObject_IsTrue(related);
        if (truth < 0) goto fail;
        linked |= truth;
        Py_CLEAR(type);
        Py_CLEAR(card_id);
        Py_CLEAR(revision);
        Py_CLEAR(related);
        position += slots;
    }
    Py_DECREF(cards);
    PyObject *data = PyBytes_FromStringAndSize(buffer.data ? buffer.data : "", buffer.length);
    PyMem_Free(buffer.data);
    if (data == NULL) return NULL;
    PyObject *pair = Py_BuildValue("(NO)", data, linked ? Py_True : Py_False);
    return pair;
fail:
    Py_XDECREF(type);
    Py_XDECREF(card_id);
    Py_XDECREF(revision);
    Py_XDECREF(related);
    Py_XDECREF(variants);
    Py_DECREF(cards);
    PyMem_Free(buffer.data);
    return NULL;
}

/* item_rows(rows, ItemRow, its field names, ItemState, its field names) -> [ItemRow, ...]

   Each row is the store's ITEM_COLUMNS (22 values); each object is made as _row_to_item makes
   it: allocated by its class and its slots set directly (a frozen dataclass's own __init__
   goes through object.__setattr__ for every field). The field names are the classes' own, in
   order; they are checked against the columns each takes, so a field added to either class
   fails here at once instead of filling the wrong slot. */
#define ROW_COLUMNS 22
#define ITEM_ROW_FIELDS 13
#define ITEM_STATE_FIELDS 10

static const char *const ITEM_ROW_NAMES[ITEM_ROW_FIELDS] = {
    "id", "key", "deck_id", "card_id", "variant", "revision", "position", "present", "state", "suspended",
    "buried_day", "flag_note", "flagged_ms"};
static const char *const ITEM_STATE_NAMES[ITEM_STATE_FIELDS] = {
    "state", "step", "stability", "difficulty", "due_ms", "last_review_ms", "interval", "reps", "lapses", "leech"};
/* The column each field takes (-1: ItemRow's state, the ItemState made from the row), and
   whether it is stored as bool(value). */
static const int ITEM_ROW_COLUMN[ITEM_ROW_FIELDS] = {0, 1, 2, 3, 4, 5, 6, 7, -1, 18, 19, 20, 21};
static const int ITEM_ROW_BOOL[ITEM_ROW_FIELDS] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0};
static const int ITEM_STATE_COLUMN[ITEM_STATE_FIELDS] = {8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
static const int ITEM_STATE_BOOL[ITEM_STATE_FIELDS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

static int field_offsets(PyObject *type, PyObject *names, const char *const *expected, int count,
                         Py_ssize_t *offsets) {
    if (!PyType_Check(type) || !PyTuple_Check(names) || PyTuple_GET_SIZE(names) != count) {
        PyErr_Format(PyExc_TypeError, "item_rows: expected a class and the %d names of its fields", count);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyUnicode_Check(name) || PyUnicode_CompareWithASCIIString(name, expected[i]) != 0) {
            PyErr_Format(PyExc_TypeError, "item_rows: field %d of %.100s is %R, where %s was expected", i,
                         ((PyTypeObject *)type)->tp_name, name, expected[i]);
            return -1;
        }
        PyObject *descriptor = _PyType_Lookup((PyTypeObject *)type, name);  /* borrowed */
        /* The slot must be the class's own (or a base's): a descriptor borrowed from another
           class would have this write at that class's offsets, past the object's end. */
        if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type) ||
            !PyType_IsSubtype((PyTypeObject *)type, PyDescr_TYPE(descriptor)) ||
            ((PyMemberDescrObject *)descriptor)->d_member->type != T_OBJECT_EX ||
            (((PyMemberDescrObject *)descriptor)->d_member->flags & READONLY)) {
            PyErr_Format(PyExc_TypeError, "item_rows: %.100s.%s is not a plain slot", ((PyTypeObject *)type)->tp_name,
                         expected[i]);
            return -1;
        }
        offsets[i] = ((PyMemberDescrObject *)descriptor)->d_member->offset;
    }
    return 0;
}

/* Set a fresh object's slot to value, or to bool(value); a new reference goes into the slot. */
static int set_slot(PyObject *object, Py_ssize_t offset, PyObject *value, int as_bool) {
    if (as_bool) {
        int truth = PyObject_IsTrue(value);
        if (truth < 0) return -1;
        value = truth ? Py_True : Py_False;
    }
    *(PyObject **)((char *)object + offset) = Py_NewRef(value);
    return 0;
}

static PyObject *item_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "item_rows(rows, row_type, row_fields, state_type, state_fields) takes 5 arguments");
        return NULL;
    }
    Py_ssize_t row_offsets[ITEM_ROW_FIELDS], state_offsets[ITEM_STATE_FIELDS];
    if (field_offsets(args[1], args[2], ITEM_ROW_NAMES, ITEM_ROW_FIELDS, row_offsets) < 0 ||
        field_offsets(args[3], args[4], ITEM_STATE_NAMES, ITEM_STATE_FIELDS, state_offsets) < 0)
        return NULL;
    PyTypeObject *row_type = (PyTypeObject *)args[1], *state_type = (PyTypeObject *)args[3];
    /* A tuple of the rows, not the caller's list: bool() of a value can run Python code, which
       could change a list while its items are read here. */
    PyObject *rows = PySequence_Tuple(args[0]);
    if (rows == NULL) return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(rows);
    PyObject *out = PyList_New(count);
    if (out == NULL) {
        Py_DECREF(rows);
        return NULL;
    }
    for (Py_ssize_t n = 0; n < count; n++) {
        PyObject *row = PyTuple_GET_ITEM(rows, n);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != ROW_COLUMNS) {
            PyErr_Format(PyExc_TypeError, "item_rows: row %zd is not a tuple of %d values", n, ROW_COLUMNS);
            goto fail;
        }
        /* Allocated as object.__new__ allocates them: every slot empty until set. */
        PyObject *state = state_type->tp_alloc(state_type, 0);
        if (state == NULL) goto fail;
        for (int i = 0; i < ITEM_STATE_FIELDS; i++) {
            if (set_slot(state, state_offsets[i], PyTuple_GET_ITEM(row, ITEM_STATE_COLUMN[i]), ITEM_STATE_BOOL[i]) < 0) {
                Py_DECREF(state);
                goto fail;
            }
        }
        PyObject *item = row_type->tp_alloc(row_type, 0);
        if (item == NULL) {
            Py_DECREF(state);
            goto fail;
        }
        PyList_SET_ITEM(out, n, item);  /* the list owns it from here, filled or not */
        for (int i = 0; i < ITEM_ROW_FIELDS; i++) {
            int column = ITEM_ROW_COLUMN[i];
            if (column < 0) {
                *(PyObject **)((char *)item + row_offsets[i]) = state;  /* the reference made above */
                state = NULL;
            } else if (set_slot(item, row_offsets[i], PyTuple_GET_ITEM(row, column), ITEM_ROW_BOOL[i]) < 0) {
                Py_XDECREF(state);
                goto fail;
            }
        }
    }
    Py_DECREF(rows);
    return out;
fail:
    Py_DECREF(rows);
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"review_days", (PyCFunction)(void (*)(void))review_days, METH_FASTCALL,
     "review_days(hard, good, easy, previous, maximum, factor, counts) -> (hard, good, easy) days"},
    {"review_numbers", (PyCFunction)(void (*)(void))review_numbers, METH_FASTCALL,
     "review_numbers(states, previous, maximum, factor, counts) -> 8 stored memory numbers, then 3 days"},
    {"fuzzed_day", (PyCFunction)(void (*)(void))fuzzed_day, METH_FASTCALL,
     "fuzzed_day(interval, minimum, maximum, factor, counts) -> a day: load balanced, else fuzzed"},
    {"deck_rows", (PyCFunction)(void (*)(void))deck_rows, METH_FASTCALL,
     "deck_rows(cards, prefix, main, multi_variant_types, slots) -> (UTF-8 rows, whether a card has links)"},
    {"first_block", first_block, METH_O, "first_block(seed) -> (key words, first ChaCha12 block) of StdRng"},
    {"fuzz_factor", fuzz_factor, METH_O, "fuzz_factor(seed) -> Anki's review fuzz number in [0, 1)"},
    {"learning_fuzz_secs", (PyCFunction)(void (*)(void))learning_fuzz_secs, METH_FASTCALL,
     "learning_fuzz_secs(seed, secs) -> a learning step's delay with Anki's fuzz"},
    {"item_rows", (PyCFunction)(void (*)(void))item_rows, METH_FASTCALL,
     "item_rows(rows, row_type, row_fields, state_type, state_fields) -> the rows as ItemRow objects"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_speedups", "Compiled copies of hot pure-Python code (see each function).", -1, methods,
};

PyMODINIT_FUNC PyInit__speedups(void) {
    F015 = f32(0.15);
    F01 = f32(0.1);
    F005 = f32(0.05);
    DELTA_7 = f32(1.0 + f32(F015 * (7.0 - 2.5)));
    DELTA_20 = f32(DELTA_7 + f32(F01 * (20.0 - 7.0)));
    LARGEST_BELOW_ONE = f32(1.0 - ldexp(1.0, -23));
    NAME_AGAIN = PyUnicode_InternFromString("again");
    NAME_HARD = PyUnicode_InternFromString("hard");
    NAME_GOOD = PyUnicode_InternFromString("good");
    NAME_EASY = PyUnicode_InternFromString("easy");
    NAME_MEMORY = PyUnicode_InternFromString("memory");
    NAME_STABILITY = PyUnicode_InternFromString("stability");
    NAME_DIFFICULTY = PyUnicode_InternFromString("difficulty");
    NAME_INTERVAL = PyUnicode_InternFromString("interval");
    if (!NAME_AGAIN || !NAME_HARD || !NAME_GOOD || !NAME_EASY || !NAME_MEMORY || !NAME_STABILITY || !NAME_DIFFICULTY ||
        !NAME_INTERVAL)
        return NULL;
    NAME_TYPE = PyUnicode_InternFromString("type");
    NAME_ID = PyUnicode_InternFromString("id");
    NAME_REVISION = PyUnicode_InternFromString("revision");
    NAME_RELATED = PyUnicode_InternFromString("related");
    NAME_VARIANTS = PyUnicode_InternFromString("variants");
    if (!NAME_TYPE || !NAME_ID || !NAME_REVISION || !NAME_RELATED || !NAME_VARIANTS) return NULL;
    return PyModule_Create(&module_def);
}
