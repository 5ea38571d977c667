// wsc command-line front end (subcommands are added as the testbenches land).
#include <cstdio>
int main() {
    std::puts("wsc: under construction");
    return 0;
}
