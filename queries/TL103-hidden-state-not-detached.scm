; TL103 hidden-state-not-detached
; A recurrent call that consumes a state and re-binds it from its result, in
; a step loop whose iteration never detaches the state: the next iteration's
; backward runs through every earlier batch's graph.

; out, h = rnn(x, h)   and   out, (h, c) = lstm(x, (h, c))
((assignment
  left: (pattern_list
    [
      (identifier) @_state
      (attribute) @_state
      (tuple_pattern
        [
          (identifier)
          (attribute)
        ] @_state)
    ])
  right: (call
    arguments: (argument_list
      [
        (identifier) @_arg
        (attribute) @_arg
        (tuple
          [
            (identifier)
            (attribute)
          ] @_arg)
      ])) @_call) @finding
  (#eq? @_state @_arg)
  (#module-forward? @_call)
  (#carried-with-graph? @_state))

; h = cell(x, h)
((assignment
  left: [
    (identifier)
    (attribute)
  ] @_state
  right: (call
    arguments: (argument_list
      [
        (identifier)
        (attribute)
      ] @_arg)) @_call) @finding
  (#eq? @_state @_arg)
  (#module-forward? @_call)
  (#carried-with-graph? @_state))
