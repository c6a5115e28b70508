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

; F.softmax(x, 1).log(), x.sigmoid().log(), x.exp().sum(1).log()
((call
  function: (attribute
    object: (_) @_value
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "log")
  (#made-by? @_value softmax))

((call
  function: (attribute
    object: (_) @_value
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "log")
  (#made-by? @_value sigmoid))

((call
  function: (attribute
    object: (_) @_value
    attribute: (identifier) @_method)) @finding
  (#eq? @_method "log")
  (#made-by? @_value exp-sum))
