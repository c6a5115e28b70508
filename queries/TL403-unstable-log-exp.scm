; TL403 unstable-log-exp
; A log-space quantity computed in linear space: the log of a softmax, of a
; sigmoid, or of a sum of exponentials, in function and method forms.

; torch.log(F.softmax(x, 1)), torch.log(torch.sigmoid(x)), torch.log(torch.sum(torch.exp(x), 1))
((call
  function: (_) @_log
  arguments: (argument_list . (_) @_value .)) @finding
  (#api? @_log log)
  (#made-by? @_value softmax))

((call
  function: (_) @_log
  arguments: (argument_list . (_) @_value .)) @finding
  (#api? @_log log)
  (#made-by? @_value sigmoid))

((call
  function: (_) @_log
  arguments: (argument_list . (_) @_value .)) @finding
  (#api? @_log log)
  (#made-by? @_value exp-sum))

; F.softmax(x, 1).log(), x.sigmoid().log(), x.exp().sum(1).log(): Tensor.log
; takes no argument, so a call with one (np.log(x), math.log(2),
; logger.log(level, msg)) is not it, and its object is not asked about.
((call
  function: (attribute
    object: (_) @_value
    attribute: (identifier) @_method)
  arguments: (argument_list) @_noargs) @finding
  (#eq? @_method "log")
  (#match? @_noargs "^[(][ \t]*[)]$")
  (#made-by? @_value softmax))

((call
  function: (attribute
    object: (_) @_value
    attribute: (identifier) @_method)
  arguments: (argument_list) @_noargs) @finding
  (#eq? @_method "log")
  (#match? @_noargs "^[(][ \t]*[)]$")
  (#made-by? @_value sigmoid))

((call
  function: (attribute
    object: (_) @_value
    attribute: (identifier) @_method)
  arguments: (argument_list) @_noargs) @finding
  (#eq? @_method "log")
  (#match? @_noargs "^[(][ \t]*[)]$")
  (#made-by? @_value exp-sum))

; The nested forms again, with what the fix needs: torch.log(torch.sum(
; torch.exp(x), d)) (one torch object throughout) and x.exp().sum(d).log(),
; the sum given exactly its dimension (positional or `dim=`): logsumexp
; needs one, and takes no dtype. Plain expressions only (no `input=x`, no
; `*args`), so that the rewrite stays a valid call.
((call
  function: (attribute object: (_) @_torch attribute: (identifier)) @_log
  arguments: (argument_list .
    (call
      function: (attribute object: (_) @_torch2 attribute: (identifier) @_sum)
      arguments: (argument_list .
        (call
          function: (attribute object: (_) @_torch3 attribute: (identifier) @_exp)
          arguments: (argument_list . [(identifier) (attribute) (call) (subscript) (binary_operator) (unary_operator) (parenthesized_expression)] @_x .))
        .
        [(integer) (unary_operator) (identifier) (attribute) (tuple) (list) (call) (subscript)
         (keyword_argument name: (identifier) @_dimname)] @_dim
        .)) @_value .)) @finding
  (#api? @_log log)
  (#eq? @_torch2 @_torch)
  (#eq? @_torch3 @_torch)
  (#eq? @_sum "sum")
  (#eq? @_exp "exp")
  (#eq? @_dimname "dim")
  (#made-by? @_value exp-sum))

((call
  function: (attribute
    object: (call
      function: (attribute
        object: (call
          function: (attribute object: (_) @_x attribute: (identifier) @_exp)
          arguments: (argument_list) @_noargs)
        attribute: (identifier) @_sum)
      arguments: (argument_list .
        [(integer) (unary_operator) (identifier) (attribute) (tuple) (list) (call) (subscript)
         (keyword_argument name: (identifier) @_dimname)] @_dim
        .)) @_value
    attribute: (identifier) @_method)
  arguments: (argument_list) @_noargs2) @finding
  (#eq? @_method "log")
  (#match? @_noargs "^[(][ \t]*[)]$")
  (#match? @_noargs2 "^[(][ \t]*[)]$")
  (#eq? @_sum "sum")
  (#eq? @_exp "exp")
  (#eq? @_dimname "dim")
  (#made-by? @_value exp-sum))
