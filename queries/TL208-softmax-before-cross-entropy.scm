; TL208 softmax-before-cross-entropy
; The input of F.cross_entropy / nn.CrossEntropyLoss is a softmax output:
; an explicit softmax in the function, or a model whose last layer (every
; return of its forward) is a softmax.
((call
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_input)) @finding
  (#loss-is? @finding cross-entropy)
  (#made-by? @_input softmax))

((call
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_input)) @finding
  (#loss-is? @finding cross-entropy)
  (#model-output? @_input softmax))
