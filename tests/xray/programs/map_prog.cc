// C++ names for tests/xray/test_map.c and test_demangle.c. No #include.
namespace outer {
namespace inner {
template <typename T> T twice(T x) { return x + x; }
struct Widget {
    int v;
    Widget(int x) : v(x) {}
    ~Widget() { v = 0; }
    int get() const { return v; }
    Widget &operator+=(int d) { v += d; return *this; }
    static int make(const char *s, unsigned long n) { return (int)n + s[0]; }
};
} // namespace inner
} // namespace outer
namespace {
int hidden(int x) { return x - 1; }
} // namespace
template <typename A, typename B> struct Pair {
    A a;
    B b;
    int sum() { return (int)a + (b ? 1 : 0); }
};
extern "C" int map_c_linkage(int x) { return x + 3; }

int main(int argc, char **)
{
    outer::inner::Widget w(argc);
    w += 3;
    Pair<int, Pair<long, char> *> p{1, nullptr};
    return outer::inner::twice(argc) + (int)outer::inner::twice(2.0) +
           hidden(argc) + w.get() + p.sum() +
           outer::inner::Widget::make("a", 1) + map_c_linkage(argc);
}
