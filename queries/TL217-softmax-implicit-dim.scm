; TL217 softmax-implicit-dim
; A softmax whose dimension is left to PyTorch's legacy choice: dim 0 for
; 0-, 1- and 3-D input, dim 1 otherwise, so a (batch, time, classes) tensor
; is normalised across the batch. torch.softmax(x, d) and x.softmax(d)
; require the dimension and never match; nn.Softmax2d has its own.

; F.softmax(x), F.log_softmax(x), F.softmin(x) with no dim; not on a numpy
; array (F.softmax raises on one before it picks a dimension)
((call
  function: [
    (identifier)
    (attribute)
  ]
  arguments: (argument_list . (_) @input)) @finding
  (#api? @finding softmax-function)
  (#not-passes-argument? @finding dim)
  (#not-host-array? @input))

; nn.Softmax(), nn.LogSoftmax(), nn.Softmin() with no dim
((call
  function: [
    (identifier)
    (attribute)
  ]) @finding
  (#api? @finding softmax-module)
  (#not-passes-argument? @finding dim))
