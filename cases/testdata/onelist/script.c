/* onelist_add_twice's script: the function the host calls, bb_add in JavaScript. */
static const char js_add_twice[] = "function add(a, b) { return (a + b) % 1000003; }\n";
