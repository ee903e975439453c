// C++ names whose spelling differs between GCC's demangler (libiberty) and
// LLVM's (llvm-cxxfilt, llvm-xray): lambdas, operator templates, `>>`,
// inheriting constructors, std::thread with a lambda. Used by
// tests/xray/test_demangle.c (against llvm-cxxfilt) and names_vs_llvm.sh
// (tracekit -m outputs against llvm-xray).
// Single-threaded unless run with an argument (then one std::thread).
#include <string>
#include <thread>
#include <vector>

namespace shapes {

template <typename T> struct Box {
    T v;
    explicit Box(T x) : v(x) {}
    ~Box() { v = T(); }
    Box &operator+=(const Box &o) { v = v + o.v; return *this; }
    bool operator==(const Box &o) const { return v == o.v; }
    T operator()(int k) const { return v + T(k); }
};

// operator< and operator<< as templates: `operator< <char>`, `operator<<`
template <typename T> bool operator<(const Box<T> &a, const Box<T> &b)
{
    return a.v < b.v;
}
template <typename T> int operator<<(const Box<T> &a, int n) { return (int)a.v << n; }

// nested templates: `Box<Box<int> >` (GCC) vs `Box<Box<int>>` (LLVM)
template <typename T> int depth(const std::vector<std::vector<T>> &v)
{
    return (int)v.size();
}

// non-type template arguments
template <int N, bool B, char C> int constant() { return B ? N + C : N - C; }
template <unsigned long N> struct Fixed {
    int sum() const { return (int)N; }
};

// lambdas: plain, nested, in a template, generic, capturing
template <typename T> T apply_twice(T x)
{
    auto f = [](T y) { return y + y; };
    return f(f(x));
}
inline int nested(int x)
{
    auto outer = [x](int y) {
        auto inner = [&](int z) { return x + y + z; };
        return inner(1) + inner(2);
    };
    return outer(3);
}
inline int generic(int x)
{
    auto g = [](auto a, auto b) { return a + b; };
    return g(x, 1) + (int)g(2.0, 0.5);
}

// inheriting constructor: LLVM names it after the base class
struct Base {
    int b;
    explicit Base(int x) : b(x) {}
    Base(int x, const char *) : b(x + 1) {}
    virtual ~Base() {}
    virtual int value() const { return b; }
};
struct Derived : Base {
    using Base::Base;
    int value() const override { return b * 2; }
};

} // namespace shapes

namespace {
struct Hidden {
    int h;
    int twice() const { return h * 2; }
};
int hidden(int x) { return Hidden{x}.twice(); }
} // namespace

namespace outer {
namespace inner {
int deep(const std::string &s, unsigned long n) { return (int)(s.size() + n); }
} // namespace inner
} // namespace outer

extern "C" int names_c_linkage(int x) { return x + 3; }

static int run_all(int argc)
{
    using namespace shapes;
    Box<int> a(argc), b(2);
    Box<char> c('a'), d('b');
    a += b;
    int r = (a < b) + (c < d) + (a << 2) + (c << 1) + (a == b) + a(1) + c(2);
    std::vector<std::vector<int>> vv(2);
    std::vector<std::vector<Box<int>>> vb(1);
    r += depth(vv) + depth(vb);
    r += constant<3, true, 'x'>() + constant<-1, false, '\0'>();
    r += Fixed<42>().sum();
    r += apply_twice(argc) + (int)apply_twice(1.5) + nested(argc) + generic(argc);
    Derived d1(argc), d2(argc, "two");
    Base &br = d1;
    r += br.value() + d2.value();
    r += hidden(argc) + outer::inner::deep("abc", 2) + names_c_linkage(argc);
    return r;
}

int main(int argc, char **argv)
{
    (void)argv;
    int r = run_all(argc);
    if (argc > 1) {
        std::thread t([&r] { r += run_all(2); });
        t.join();
    }
    return r == 12345;
}
