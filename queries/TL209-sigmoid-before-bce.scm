; TL209 sigmoid-before-bce
; BCELoss / F.binary_cross_entropy on an explicit sigmoid of the same
; function, or any BCELoss inside an autocast region on a GPU device (where
; PyTorch refuses it; a literal "cpu" autocast is left alone). A model whose last layer is nn.Sigmoid feeding BCELoss outside
; autocast (DCGAN, VAE) is not matched.
((call
  arguments: (argument_list
    .
    (comment)*
    .
    (_) @_input)) @finding
  (#loss-is? @finding bce)
  (#made-by? @_input sigmoid))

((call) @finding
  (#loss-is? @finding bce)
  (#under-context? @finding device-autocast))
