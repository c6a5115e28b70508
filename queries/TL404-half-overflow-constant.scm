; TL404 half-overflow-constant
; A constant beyond float16's range (|c| > 65504: -1e9, 1e5, float("1e10"),
; or a name bound once to one) written into a tensor where it computes in
; float16: under a float16 autocast region, or in a file that converts a
; module or tensor to float16. Not bfloat16 (float32's range), not inf, and
; not into a value converted to float32 first (`scores.float()`).

; scores.masked_fill(mask, -1e9), x.fill_(1e10), x.index_fill_(0, idx, -1e9)
((call
  function: (attribute
    object: (_) @_written
    attribute: (identifier) @_method)
  arguments: (argument_list
    [(_) @_value
     (keyword_argument
       name: (identifier) @_key
       value: (_) @_value)])) @finding
  (#any-of? @_method "masked_fill" "masked_fill_" "fill_" "index_fill" "index_fill_")
  (#number-beyond? @_value float16)
  (#not-float32-value? @_written)
  (#runs-in-half? @finding))

; torch.full(shape, -1e9, dtype=torch.float16) / torch.full_like(x, -1e9) /
; x.new_full(shape, -1e9): the fill value in float16
((call
  function: (attribute
    attribute: (identifier) @_method)
  arguments: (argument_list
    [(_) @_value
     (keyword_argument
       name: (identifier) @_key
       value: (_) @_value)])) @finding
  (#any-of? @_method "full_like" "new_full")
  (#number-beyond? @_value float16)
  (#runs-in-half? @finding))

((call
  function: [
    (identifier) @_name
    (attribute attribute: (identifier) @_name)]
  arguments: (argument_list
    .
    (_)
    .
    (_) @_value
    (keyword_argument
      name: (identifier) @_key
      value: (_) @_dtype))) @finding
  (#eq? @_name "full")
  (#api? @finding tensor-factory)
  (#eq? @_key "dtype")
  (#half-dtype? @_dtype)
  (#number-beyond? @_value float16))

; the same with fill_value= (a factory's other arguments are sizes, not
; values written into it: torch.zeros(2359332864, dtype=torch.half))
((call
  arguments: (argument_list
    (keyword_argument
      name: (identifier) @_fill
      value: (_) @_value)
    (keyword_argument
      name: (identifier) @_key
      value: (_) @_dtype))) @finding
  (#eq? @_fill "fill_value")
  (#api? @finding tensor-factory)
  (#eq? @_key "dtype")
  (#half-dtype? @_dtype)
  (#number-beyond? @_value float16))

; scores + mask * -1e9, logits - 1e9 * (1 - keep), scores - 1e9: the
; constant (or the term it scales) meets a known tensor in one expression
((binary_operator
  left: (_) @_tensor
  right: [
    (_) @_value
    (binary_operator left: (_) @_value)
    (binary_operator right: (_) @_value)]) @finding
  (#number-beyond? @_value float16)
  (#runs-in-half? @finding)
  (#known-tensor? @_tensor)
  (#not-float32-value? @_tensor))

((binary_operator
  left: [
    (_) @_value
    (binary_operator left: (_) @_value)
    (binary_operator right: (_) @_value)]
  right: (_) @_tensor) @finding
  (#number-beyond? @_value float16)
  (#runs-in-half? @finding)
  (#known-tensor? @_tensor)
  (#not-float32-value? @_tensor))
