/* host_functions.h: the one list of the host functions the cases' scripts call. Every program's table of them expands
 * it: the floors' (floor/floor.c and each engine's floor/floor_*) and the reference bridge's (host_fns.c, and the fast
 * codec's typed entries in codec_fast.c), so that each program writes only its functions' bodies, one C function
 * named as the list names it. cases/hostfns_test.go checks that the list has every function a case's script calls.
 *
 * BB_HOST_FNS(FN, TYPED) expands FN(name, arity, fast) for each function, and TYPED(name, arity, fast) for each whose
 * argument is a typed array (an engine without typed arrays, MuJS's ES5, has none: it passes BB_HOST_NONE):
 *   name   the global the script calls, and the C function of that name in each program
 *   arity  how many arguments the script passes: the function's length
 *   fast   the fast codec's entry (codec_fast.c): its typed entry, or bin_entry for a function whose argument no typed
 *          entry reads (an object or an array), which takes the binary path
 * in the order every program registers them. */
#ifndef BB_HOST_FUNCTIONS_H
#define BB_HOST_FUNCTIONS_H

#define BB_HOST_FNS(FN, TYPED)                   \
	FN(host_add, 2, fast_add)                \
	FN(host_upper, 1, fast_upper)            \
	FN(host_obj, 1, bin_entry)               \
	FN(host_sum, 1, bin_entry)               \
	FN(host_register, 1, fast_register)      \
	FN(host_fail, 1, fast_fail)              \
	FN(set_prop, 3, fast_set_prop)           \
	TYPED(apply_ops, 1, fast_apply_ops)      \
	TYPED(host_bytes, 1, fast_bytes)         \
	FN(host_record, 1, bin_entry)            \
	FN(set_node, 1, bin_entry)               \
	FN(apply_batch, 1, bin_entry)

/* BB_HOST_ENTRY is the entry {"name", name, arity} of a table of {name, function, arity}, the shape of every
 * program's; BB_HOST_NONE leaves a function out. */
#define BB_HOST_ENTRY(name, arity, fast) {#name, name, arity},
#define BB_HOST_NONE(name, arity, fast)

#endif
