// C++ names: namespaces and classes qualify ("class.ns::C"), base classes
// are flattened without a prefix, static members are not fields.
namespace ns {
class C {
public:
    int a;
    long b;
    static int counter;
};
int C::counter;

struct Base {
    int x;
};
struct Derived : Base {
    int y;
};
struct Holder {
    struct Nested {
        char n;
    } nested;
    int z;
};
} // namespace ns

ns::C g_c;
ns::Derived g_derived;
ns::Holder g_holder;

int main()
{
    return g_c.a + g_derived.y + g_holder.z;
}
