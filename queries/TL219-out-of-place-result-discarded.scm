; TL219 out-of-place-result-discarded
; An out-of-place tensor operation as a whole statement: the method form on
; a value known to be a tensor (`scores.masked_fill(mask, -inf)`,
; `x.clamp(0, 1)`, `h.unsqueeze(0)`), and the torch function form without
; `out=` (`torch.clamp(x, 0, 1)`). The new tensor is thrown away and the
; receiver is unchanged. The methods are those with an in-place twin `op_`
; and the view and shape methods; in-place methods, methods with side
; effects and receivers of unknown kind never match, nor test functions
; (which run an operation for its errors or a profiler's record), and
; top-level statements of a notebook (Jupyter displays a cell's last value). TL206 covers moves and
; dtype casts.
((expression_statement
  (call
    function: (attribute
      object: [
        (identifier)
        (attribute)
        (subscript)
      ] @_tensor
      attribute: (identifier) @_method)) @finding)
  (#any-of? @_method
    "masked_fill" "masked_scatter" "index_fill" "index_add" "index_copy" "index_put"
    "scatter" "scatter_add" "clamp" "clip" "clamp_min" "clamp_max" "add" "sub" "mul" "div"
    "true_divide" "floor_divide" "fmod" "remainder" "pow" "lerp" "addcmul" "addcdiv"
    "relu" "sigmoid" "tanh" "abs" "neg" "exp" "log" "log1p" "sqrt" "rsqrt" "reciprocal"
    "sign" "round" "floor" "ceil" "trunc" "nan_to_num" "tril" "triu"
    "unsqueeze" "squeeze" "transpose" "t" "permute" "view" "view_as" "reshape"
    "reshape_as" "expand" "expand_as" "flatten" "contiguous" "flip" "roll" "detach")
  (#not-in-test-code? @finding)
  (#not-displayed? @finding)
  (#known-tensor? @_tensor))
((expression_statement
  (call
    arguments: (argument_list
      .
      [
        (identifier)
        (attribute)
        (subscript)
      ] @_tensor)) @finding)
  (#api? @finding out-of-place)
  (#not-passes-keyword? @finding out)
  (#not-in-test-code? @finding)
  (#not-displayed? @finding))
