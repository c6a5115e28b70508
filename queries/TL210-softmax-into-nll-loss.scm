; TL210 softmax-into-nll-loss
; The input of F.nll_loss / nn.NLLLoss is a softmax output, not a
; log_softmax one.
((call
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_input)) @finding
  (#loss-is? @finding nll)
  (#made-by? @_input softmax))

((call
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_input)) @finding
  (#loss-is? @finding nll)
  (#model-output? @_input softmax))
