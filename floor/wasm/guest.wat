;; guest.wat: the catalogue (cases/c/cases.def) as a WebAssembly guest, the one guest of every WebAssembly floor
;; (wazero's in Go, wasmtime's in C, V8's in node). build.WasmGuest compiles it with Debian's wat2wasm (wabt) into
;; bench-bridge's cache; a floor loads that guest.wasm. This header is the interface contract between the guest and
;; every host: keep the floors and it in step.
;;
;; WHAT STANDS FOR JAVASCRIPT. The guest takes the place of the case scripts: a script -> host case is a bench_*
;; export whose loop makes n crossings (the host calls it once per sample, as it calls a script's bench(n)), a host ->
;; script case is an export the host calls once per op. Numbers cross as i32 (s and i of the loops stay below 2^31:
;; n <= 10^9, s < 1000003), f64 where the catalogue's values are fractional (x, y, the arrays, the UI values). Texts,
;; bytes and records cross through linear memory as the Component Model's canonical ABI lays them out: a string is
;; (ptr i32, len i32) of UTF-8 bytes, a record's fields are at their natural alignment in declaration order, a list is
;; (ptr, count) of its elements side by side. The host reads and writes them in place, at the offsets the guest gives;
;; it never grows the memory (5 pages, fixed, below).
;;
;; IMPORTS, module "bb". Each does the host-side work every floor does (package harness in Go, harness_host.c in C;
;; each calls the --slowdown hook there):
;;   host_add(a i32, b i32) -> i32             return (a + b) % 1000003                            (harness.Add)
;;   host_upper(ptr i32, len i32, out i32) -> i32
;;                                             read len bytes of UTF-8 at ptr, write them at out with ASCII a-z
;;                                             upper-cased (harness.Upper), return the length written (= len)
;;   host_obj(ptr i32, out i32)                read the Obj at ptr, write ObjOut at out              (harness.ObjHost)
;;   host_record(ptr i32, out i32)             read the Record at ptr, write at out {id + 1, the same text: its ptr and
;;                                             len as read}                                        (harness.RecordHost)
;;   host_sum(ptr i32, count i32) -> f64       the sum of count f64 at ptr (count is 64)                (harness.Sum)
;;   host_bytes(ptr i32, len i32) -> i32       the sum of len bytes at ptr (len is 65536)          (harness.BytesSum)
;;   host_fail(i i32)                          raise a trap whose message is "host_fail: refused I"
;;                                             (harness.FailMessage): it never returns to the guest
;;   host_register(index i32)                  keep index, an element of the exported table "callbacks", as the
;;                                             callback the host will call (callback case)
;;   set_prop(id i32, key_ptr i32, key_len i32, value f64)
;;                                             one UI mutation: node id, key its name (x, y, w, h, color, text,
;;                                             opacity, visible; harness.UIKey), value          (harness.UI.Set)
;;   apply_ops(ptr i32, count i32)             count f64 at ptr, (node, key index, value) triples (harness.UI.Apply)
;;   set_node(ptr i32)                         one Node at ptr                                  (harness.UI.SetNamed)
;;   apply_batch(ptr i32, count i32)           count Nodes side by side at ptr, each as set_node's
;;
;; RECORDS in memory (offsets in bytes, little-endian as all of WebAssembly's memory):
;;   Obj    (72) id i32 @0, name string @4 (ptr @4, len @8), x f64 @16, y f64 @24, tags 3 strings @32 @40 @48,
;;               pos.a f64 @56, pos.b f64 @64                            (harness.Obj; JS's {id, name, x, y, tags, pos})
;;   ObjOut (16) id i32 @0, ok u8 @4 (1 for true), x f64 @8                                          (harness.ObjOut)
;;   Record (12) id i32 @0, text string @4 (ptr @4, len @8)                                          (harness.Record)
;;   Node   (24) id i32 @0, key string @4 (ptr @4, len @8), value f64 @16                       (JS's {id, key, value})
;;
;; EXPORTS: "memory" (5 pages), the table "callbacks", immutable i32 globals that give the offsets the host writes at,
;; and functions:
;;   init(nbytes i32)      call once after instantiation, with the case's bytes (harness.Bytes; 0 for none, at most
;;                         65536): makes S (mkstr(nbytes): harness.Text's bytes) at text_s, the record R {0, S}, the
;;                         object O, the array A (A[i] = i * 0.5) and the bytes B (B[i] = (i * 31 + 7) & 255)
;;   check_*()             a script's expect() lines: each calls its host function once and traps (unreachable) when
;;                         the result is wrong; the host calls the case's check after init, before timing
;;   bench_*(n i32) -> i32 a script -> host case's loop: n ops (n frames of 16 mutations for bench_ui_*); the result is
;;                         a sink the host keeps
;;   add(a i32, b i32) -> i32          (a + b) % 1000003
;;   obj(ptr i32) -> i32               reads the Obj at ptr (id, x, y), writes {id + 1, ok, x + y} at obj_out, returns
;;                                     obj_out
;;   text(ptr i32, len i32) -> (i32, i32)
;;                                     returns the text it was given: (ptr, len)
;;   record(ptr i32) -> i32            reads the Record at ptr, writes {id + 1, the same text} at record_out, returns
;;                                     record_out
;;   fail(i i32)                       writes "script_fail: refused I" at err (an i32 length, then the bytes) and
;;                                     traps (unreachable)
;;   error_host(i i32)                 calls host_fail(i); the host's trap unwinds it
;;   register()                        calls host_register with the callback's index in "callbacks"
;;   call_ref(index i32, a i32, b i32) -> i32
;;                                     calls callbacks[index](a, b) (call_indirect): the way to a table's function for
;;                                     a host whose API cannot call one itself (wazero's)
;;   Globals: text_s (S: nbytes), text_out (64 KiB host_upper writes into), text_in (64 KiB: the host's text of the
;;   host -> script cases), obj_in (256: an Obj the host writes, then its strings from obj_in + 72), record_in (12:
;;   a Record the host writes; its text at text_in), err (4 + 256: fail's message).
;;
;; WHICH EXPORT RUNS WHICH CASE (every case: init(harness.Bytes(case)) first, then the check, then the timed loop)
;;   ref_js_loop                          check_ref, bench_ref: the loop of bench_scalar with host_add replaced by its
;;                                        arithmetic, in the guest
;;   script_to_host_scalar                check_scalar, bench_scalar: s = host_add(s, i)
;;   script_to_host_string_{16,1k,64k}    check_string, bench_string: s += host_upper(S, N, text_out)
;;   script_to_host_object                check_object, bench_object: O.id = i; host_obj(O, out); s = (s + id + x) % M
;;   script_to_host_object_string_*       check_record, bench_record: R.id = i; host_record(R, out); s += id + len
;;   script_to_host_array                 check_array, bench_array: A[0] = i; s = (s + host_sum(A, 64)) % M
;;   host_to_script_scalar                add, one call per op (the host checks 100 calls: harness.CheckAdd)
;;   host_to_script_string_*              text: the host writes its text (harness.Text) at text_in, calls text and
;;                                        reads the (ptr, len) that come back
;;   host_to_script_object                obj: the host writes an Obj (harness.ObjSample) at obj_in, reads ObjOut
;;   host_to_script_object_string_*       record: the host writes its text at text_in and a Record at record_in
;;   callback                             register() once; then each op is a call of the kept callback (a, b) ->
;;                                        (a + b) % M: directly where the host's API calls a table's function
;;                                        (wasmtime, V8's WebAssembly.Table.get), else through call_ref (wazero)
;;   error_host_to_script                 error_host(i), one call per op from the host: host_fail traps, the trap
;;                                        unwinds the guest and comes back to the host from its call, whose message
;;                                        (host_fail: refused I) the host reads. WebAssembly 2.0 has no exceptions the
;;                                        guest could catch (the exception-handling proposal is not in every runtime:
;;                                        not in wazero), so the loop is the host's, not the guest's: each op is a
;;                                        host -> guest call, the guest's call of host_fail and the trap's unwinding
;;   error_script_to_host                 fail(i), one call per op: the guest's trap comes back to the host from its
;;                                        call; the host reads the message at err and makes the error's text
;;                                        "Error: script_fail: refused I", a newline and the runtime's trap text with
;;                                        its stack, which names fail (every exported function has its export's name,
;;                                        kept in the module's name section: build.WasmGuest runs wat2wasm
;;                                        --debug-names)
;;   ui_ops_calls                         bench_ui_calls: set_prop(m & 63, KEYS[(m >> 3) & 7], m * 0.5)
;;   ui_ops_buffer                        bench_ui_buffer: 16 (node, key, value) f64 triples, apply_ops(BUF, 48)
;;   ui_ops_object_calls                  bench_ui_object_calls: a Node written, set_node(NODE)
;;   ui_ops_object_batch                  bench_ui_object_batch: 16 Nodes side by side, apply_batch(LIST, 16)
;;   bytes_64k                            check_bytes, bench_bytes: s = (s + host_bytes(B, 65536)) % M
;; For the ui_ops_* cases the host checks its table after bench_ui_*(3) (harness.UI.Check), as for the scripts.
;; Every case of the catalogue is here. Where a script's running sum goes fractional (script_to_host_object adds
;; x = 3.75), the guest's i32 sum takes x's integer part: a sink either way.
(module $guest
  (type $add (func (param i32 i32) (result i32)))
  (import "bb" "host_add" (func $host_add (type $add)))
  (import "bb" "host_upper" (func $host_upper (param i32 i32 i32) (result i32)))
  (import "bb" "host_obj" (func $host_obj (param i32 i32)))
  (import "bb" "host_record" (func $host_record (param i32 i32)))
  (import "bb" "host_sum" (func $host_sum (param i32 i32) (result f64)))
  (import "bb" "host_bytes" (func $host_bytes (param i32 i32) (result i32)))
  (import "bb" "host_fail" (func $host_fail (param i32)))
  (import "bb" "host_register" (func $host_register (param i32)))
  (import "bb" "set_prop" (func $set_prop (param i32 i32 i32 f64)))
  (import "bb" "apply_ops" (func $apply_ops (param i32 i32)))
  (import "bb" "set_node" (func $set_node (param i32)))
  (import "bb" "apply_batch" (func $apply_batch (param i32 i32)))

  (memory (export "memory") 5 5)
  (table $callbacks (export "callbacks") 1 funcref)
  (elem (i32.const 0) $callback)

  ;; The layout. Page 0 holds the small things, each page after one 64 KiB text or the bytes.
  (global $err (export "err") i32 (i32.const 1024))          ;; i32 length, then up to 256 bytes
  (global $keys i32 (i32.const 2048))                         ;; the UI keys' bytes
  (global $key_table i32 (i32.const 2304))                    ;; 8 strings (ptr, len) into $keys
  (global $unit i32 (i32.const 2400))                         ;; mkstr's 12-byte unit
  (global $fail_msg i32 (i32.const 2432))                     ;; "script_fail: refused " (21 bytes)
  (global $obj i32 (i32.const 4096))                          ;; O, an Obj
  (global $obj_strings i32 (i32.const 4200))                  ;; O's name and tags
  (global $out i32 (i32.const 4352))                          ;; what host_obj and host_record write
  (global $rec i32 (i32.const 4416))                          ;; R, a Record
  (global $buf i32 (i32.const 8192))                          ;; BUF: 48 f64
  (global $node i32 (i32.const 8704))                         ;; a Node
  (global $list i32 (i32.const 9216))                         ;; 16 Nodes
  (global $array i32 (i32.const 12288))                       ;; A: 64 f64
  (global $obj_in (export "obj_in") i32 (i32.const 16384))    ;; an Obj from the host, its strings after it
  (global $obj_out i32 (i32.const 16896))                     ;; obj's result, an ObjOut
  (global $record_in (export "record_in") i32 (i32.const 17024))
  (global $record_out i32 (i32.const 17088))                  ;; record's result, a Record
  (global $text_s (export "text_s") i32 (i32.const 65536))    ;; S
  (global $text_out (export "text_out") i32 (i32.const 131072))
  (global $text_in (export "text_in") i32 (i32.const 196608))
  (global $bytes i32 (i32.const 262144))                      ;; B: 65536 bytes
  (global $n (mut i32) (i32.const 0))                         ;; N: the case's bytes

  ;; "x" "y" "w" "h" "color" "text" "opacity" "visible", and their (ptr, len) at 2304
  (data (i32.const 2048) "xywhcolortextopacityvisible")
  (data (i32.const 2304)
    "\00\08\00\00\01\00\00\00" "\01\08\00\00\01\00\00\00" "\02\08\00\00\01\00\00\00" "\03\08\00\00\01\00\00\00"
    "\04\08\00\00\05\00\00\00" "\09\08\00\00\04\00\00\00" "\0d\08\00\00\07\00\00\00" "\14\08\00\00\07\00\00\00")
  (data (i32.const 2400) "ab \c3\a9\e2\82\ac cd ")           ;; 'ab \u00e9\u20ac cd '
  (data (i32.const 2432) "script_fail: refused ")
  (data (i32.const 4200) "node-\c3\a9" "a" "bb" "ccc")        ;; 'node-\u00e9' @4200 (7), a @4207, bb @4208, ccc @4210

  (func $str (param $at i32) (param $ptr i32) (param $len i32) ;; stores a string (ptr, len) at $at
    (i32.store (local.get $at) (local.get $ptr))
    (i32.store offset=4 (local.get $at) (local.get $len)))

  (func $init (export "init") (param $nb i32)
    (local $i i32) (local $whole i32)
    (global.set $n (local.get $nb))
    ;; S = mkstr(N): the unit repeated, then 'a' up to N bytes
    (local.set $whole (i32.sub (local.get $nb) (i32.rem_u (local.get $nb) (i32.const 12))))
    (local.set $i (i32.const 0))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (local.get $nb)))
      (i32.store8 (i32.add (global.get $text_s) (local.get $i))
        (if (result i32) (i32.lt_u (local.get $i) (local.get $whole))
          (then (i32.load8_u (i32.add (global.get $unit) (i32.rem_u (local.get $i) (i32.const 12)))))
          (else (i32.const 97))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    ;; R = {id: 0, text: S}
    (i32.store (global.get $rec) (i32.const 0))
    (call $str (i32.add (global.get $rec) (i32.const 4)) (global.get $text_s) (local.get $nb))
    ;; O = {id: 0, name: 'node-\u00e9', x: 1.5, y: 2.25, tags: ['a', 'bb', 'ccc'], pos: {a: 3, b: 4}}
    (i32.store (global.get $obj) (i32.const 0))
    (call $str (i32.add (global.get $obj) (i32.const 4)) (i32.const 4200) (i32.const 7))
    (f64.store offset=16 (global.get $obj) (f64.const 1.5))
    (f64.store offset=24 (global.get $obj) (f64.const 2.25))
    (call $str (i32.add (global.get $obj) (i32.const 32)) (i32.const 4207) (i32.const 1))
    (call $str (i32.add (global.get $obj) (i32.const 40)) (i32.const 4208) (i32.const 2))
    (call $str (i32.add (global.get $obj) (i32.const 48)) (i32.const 4210) (i32.const 3))
    (f64.store offset=56 (global.get $obj) (f64.const 3))
    (f64.store offset=64 (global.get $obj) (f64.const 4))
    ;; A[i] = i * 0.5, B[i] = (i * 31 + 7) & 255
    (local.set $i (i32.const 0))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (i32.const 64)))
      (f64.store (i32.add (global.get $array) (i32.shl (local.get $i) (i32.const 3)))
        (f64.mul (f64.convert_i32_u (local.get $i)) (f64.const 0.5)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (local.set $i (i32.const 0))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (i32.const 65536)))
      (i32.store8 (i32.add (global.get $bytes) (local.get $i))
        (i32.add (i32.mul (local.get $i) (i32.const 31)) (i32.const 7)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each))))

  ;; ==== script -> host: the timed loops ====

  (func $bench_ref (export "bench_ref") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $s (i32.rem_u (i32.add (local.get $s) (local.get $i)) (i32.const 1000003)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (local.get $s))

  (func $bench_scalar (export "bench_scalar") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $s (call $host_add (local.get $s) (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (local.get $s))

  (func $bench_string (export "bench_string") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $s (i32.add (local.get $s)
        (call $host_upper (global.get $text_s) (global.get $n) (global.get $text_out))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (local.get $s))

  (func $bench_object (export "bench_object") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store (global.get $obj) (local.get $i))
      (call $host_obj (global.get $obj) (global.get $out))
      (local.set $s (i32.rem_u (i32.add (i32.add (local.get $s) (i32.load (global.get $out)))
        (i32.trunc_f64_s (f64.load offset=8 (global.get $out)))) (i32.const 1000003)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (local.get $s))

  (func $bench_record (export "bench_record") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store (global.get $rec) (local.get $i))
      (call $host_record (global.get $rec) (global.get $out))
      (local.set $s (i32.rem_u (i32.add (i32.add (local.get $s) (i32.load (global.get $out)))
        (i32.load offset=8 (global.get $out))) (i32.const 1000003)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (local.get $s))

  (func $bench_array (export "bench_array") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (f64.store (global.get $array) (f64.convert_i32_u (local.get $i)))
      (local.set $s (i32.rem_u (i32.add (local.get $s)
        (i32.trunc_f64_u (call $host_sum (global.get $array) (i32.const 64)))) (i32.const 1000003)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (local.get $s))

  (func $bench_bytes (export "bench_bytes") (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $s (i32.rem_u (i32.add (local.get $s)
        (call $host_bytes (global.get $bytes) (i32.const 65536))) (i32.const 1000003)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (local.get $s))

  ;; The UI mutations: mutation m sets node m & 63, key (m >> 3) & 7 to m * 0.5; n frames of 16.
  (func $key_ptr (param $m i32) (result i32)
    (i32.load (i32.add (global.get $key_table) (i32.shl (i32.and (i32.shr_u (local.get $m) (i32.const 3)) (i32.const 7)) (i32.const 3)))))
  (func $key_len (param $m i32) (result i32)
    (i32.load offset=4 (i32.add (global.get $key_table) (i32.shl (i32.and (i32.shr_u (local.get $m) (i32.const 3)) (i32.const 7)) (i32.const 3)))))
  (func $value (param $m i32) (result f64)
    (f64.mul (f64.convert_i32_u (local.get $m)) (f64.const 0.5)))
  ;; $write_node writes mutation m as a Node at $at.
  (func $write_node (param $at i32) (param $m i32)
    (i32.store (local.get $at) (i32.and (local.get $m) (i32.const 63)))
    (call $str (i32.add (local.get $at) (i32.const 4)) (call $key_ptr (local.get $m)) (call $key_len (local.get $m)))
    (f64.store offset=16 (local.get $at) (call $value (local.get $m))))

  (func $bench_ui_calls (export "bench_ui_calls") (param $n i32) (result i32)
    (local $f i32) (local $k i32) (local $m i32)
    (block $frames (loop $frame
      (br_if $frames (i32.ge_u (local.get $f) (local.get $n)))
      (local.set $k (i32.const 0))
      (block $done (loop $each
        (br_if $done (i32.ge_u (local.get $k) (i32.const 16)))
        (local.set $m (i32.add (i32.shl (local.get $f) (i32.const 4)) (local.get $k)))
        (call $set_prop (i32.and (local.get $m) (i32.const 63)) (call $key_ptr (local.get $m)) (call $key_len (local.get $m))
          (call $value (local.get $m)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $each)))
      (local.set $f (i32.add (local.get $f) (i32.const 1)))
      (br $frame)))
    (local.get $n))

  (func $bench_ui_buffer (export "bench_ui_buffer") (param $n i32) (result i32)
    (local $f i32) (local $k i32) (local $m i32) (local $at i32)
    (block $frames (loop $frame
      (br_if $frames (i32.ge_u (local.get $f) (local.get $n)))
      (local.set $k (i32.const 0))
      (block $done (loop $each
        (br_if $done (i32.ge_u (local.get $k) (i32.const 16)))
        (local.set $m (i32.add (i32.shl (local.get $f) (i32.const 4)) (local.get $k)))
        (local.set $at (i32.add (global.get $buf) (i32.mul (local.get $k) (i32.const 24))))
        (f64.store (local.get $at) (f64.convert_i32_u (i32.and (local.get $m) (i32.const 63))))
        (f64.store offset=8 (local.get $at)
          (f64.convert_i32_u (i32.and (i32.shr_u (local.get $m) (i32.const 3)) (i32.const 7))))
        (f64.store offset=16 (local.get $at) (call $value (local.get $m)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $each)))
      (call $apply_ops (global.get $buf) (i32.const 48))
      (local.set $f (i32.add (local.get $f) (i32.const 1)))
      (br $frame)))
    (local.get $n))

  (func $bench_ui_object_calls (export "bench_ui_object_calls") (param $n i32) (result i32)
    (local $f i32) (local $k i32)
    (block $frames (loop $frame
      (br_if $frames (i32.ge_u (local.get $f) (local.get $n)))
      (local.set $k (i32.const 0))
      (block $done (loop $each
        (br_if $done (i32.ge_u (local.get $k) (i32.const 16)))
        (call $write_node (global.get $node) (i32.add (i32.shl (local.get $f) (i32.const 4)) (local.get $k)))
        (call $set_node (global.get $node))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $each)))
      (local.set $f (i32.add (local.get $f) (i32.const 1)))
      (br $frame)))
    (local.get $n))

  (func $bench_ui_object_batch (export "bench_ui_object_batch") (param $n i32) (result i32)
    (local $f i32) (local $k i32)
    (block $frames (loop $frame
      (br_if $frames (i32.ge_u (local.get $f) (local.get $n)))
      (local.set $k (i32.const 0))
      (block $done (loop $each
        (br_if $done (i32.ge_u (local.get $k) (i32.const 16)))
        (call $write_node (i32.add (global.get $list) (i32.mul (local.get $k) (i32.const 24)))
          (i32.add (i32.shl (local.get $f) (i32.const 4)) (local.get $k)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $each)))
      (call $apply_batch (global.get $list) (i32.const 16))
      (local.set $f (i32.add (local.get $f) (i32.const 1)))
      (br $frame)))
    (local.get $n))

  ;; ==== script -> host: the checks (a script's expect lines); each traps when its host function is wrong ====

  (func $expect (param $ok i32)
    (if (i32.eqz (local.get $ok)) (then unreachable)))

  (func $check_ref (export "check_ref")
    (call $expect (i32.eq (call $bench_ref (i32.const 2000)) (i32.const 998997))))

  (func $check_scalar (export "check_scalar")
    (call $expect (i32.eq (call $bench_scalar (i32.const 2000)) (i32.const 998997))))

  ;; host_upper(S) is S with a-z upper-cased, its length N
  (func $check_string (export "check_string")
    (local $i i32) (local $c i32)
    (call $expect (i32.eq (call $host_upper (global.get $text_s) (global.get $n) (global.get $text_out)) (global.get $n)))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (global.get $n)))
      (local.set $c (i32.load8_u (i32.add (global.get $text_s) (local.get $i))))
      (if (i32.lt_u (i32.sub (local.get $c) (i32.const 97)) (i32.const 26))
        (then (local.set $c (i32.sub (local.get $c) (i32.const 32)))))
      (call $expect (i32.eq (i32.load8_u (i32.add (global.get $text_out) (local.get $i))) (local.get $c)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each))))

  ;; host_obj(O with id 41) is {id: 42, ok: true, x: 3.75}
  (func $check_object (export "check_object")
    (i32.store (global.get $obj) (i32.const 41))
    (call $host_obj (global.get $obj) (global.get $out))
    (call $expect (i32.eq (i32.load (global.get $out)) (i32.const 42)))
    (call $expect (i32.eq (i32.load8_u offset=4 (global.get $out)) (i32.const 1)))
    (call $expect (f64.eq (f64.load offset=8 (global.get $out)) (f64.const 3.75))))

  ;; host_record(R with id 41) is {id: 42, text: S}
  (func $check_record (export "check_record")
    (local $i i32) (local $p i32)
    (i32.store (global.get $rec) (i32.const 41))
    (call $host_record (global.get $rec) (global.get $out))
    (call $expect (i32.eq (i32.load (global.get $out)) (i32.const 42)))
    (call $expect (i32.eq (i32.load offset=8 (global.get $out)) (global.get $n)))
    (local.set $p (i32.load offset=4 (global.get $out)))
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (global.get $n)))
      (call $expect (i32.eq (i32.load8_u (i32.add (local.get $p) (local.get $i)))
        (i32.load8_u (i32.add (global.get $text_s) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each))))

  (func $check_array (export "check_array")
    (call $expect (f64.eq (call $host_sum (global.get $array) (i32.const 64)) (f64.const 1008))))

  (func $check_bytes (export "check_bytes")
    (local $i i32) (local $want i32)
    (block $done (loop $each
      (br_if $done (i32.ge_u (local.get $i) (i32.const 65536)))
      (local.set $want (i32.add (local.get $want) (i32.load8_u (i32.add (global.get $bytes) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $each)))
    (call $expect (i32.eq (call $host_bytes (global.get $bytes) (i32.const 65536)) (local.get $want))))

  ;; ==== host -> script ====

  (func $callback (type $add)
    (i32.rem_u (i32.add (local.get 0) (local.get 1)) (i32.const 1000003)))

  (func $add (export "add") (type $add)
    (i32.rem_u (i32.add (local.get 0) (local.get 1)) (i32.const 1000003)))

  (func $obj (export "obj") (param $p i32) (result i32)
    (i32.store (global.get $obj_out) (i32.add (i32.load (local.get $p)) (i32.const 1)))
    (i32.store8 offset=4 (global.get $obj_out) (i32.const 1))
    (f64.store offset=8 (global.get $obj_out)
      (f64.add (f64.load offset=16 (local.get $p)) (f64.load offset=24 (local.get $p))))
    (global.get $obj_out))

  (func $text (export "text") (param $p i32) (param $len i32) (result i32 i32)
    (local.get $p) (local.get $len))

  (func $record (export "record") (param $p i32) (result i32)
    (i32.store (global.get $record_out) (i32.add (i32.load (local.get $p)) (i32.const 1)))
    (call $str (i32.add (global.get $record_out) (i32.const 4))
      (i32.load offset=4 (local.get $p)) (i32.load offset=8 (local.get $p)))
    (global.get $record_out))

  ;; fail writes "script_fail: refused I" at err and traps.
  (func $fail (export "fail") (param $i i32)
    (local $len i32) (local $at i32) (local $digits i32) (local $v i32)
    (memory.copy (i32.add (global.get $err) (i32.const 4)) (global.get $fail_msg) (i32.const 21))
    ;; I in decimal: count its digits, then write them from the last
    (local.set $v (local.get $i))
    (local.set $digits (i32.const 1))
    (block $done (loop $count
      (br_if $done (i32.lt_u (local.get $v) (i32.const 10)))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
      (br $count)))
    (local.set $len (i32.add (i32.const 21) (local.get $digits)))
    (local.set $at (i32.add (i32.add (global.get $err) (i32.const 4)) (local.get $len)))
    (local.set $v (local.get $i))
    (loop $digit
      (local.set $at (i32.sub (local.get $at) (i32.const 1)))
      (i32.store8 (local.get $at) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (br_if $digit (local.get $v)))
    (i32.store (global.get $err) (local.get $len))
    unreachable)

  (func $error_host (export "error_host") (param $i i32)
    (call $host_fail (local.get $i)))

  (func $register (export "register")
    (call $host_register (i32.const 0)))

  (func $call_ref (export "call_ref") (param $index i32) (param $a i32) (param $b i32) (result i32)
    (call_indirect $callbacks (type $add) (local.get $a) (local.get $b) (local.get $index)))
)
