; TL401 loss-outside-autocast
; A loss computed after an autocast block from a forward output bound inside
; the block.
((call
  arguments: (argument_list) @_args) @finding @_loss
  (#loss-call? @finding)
  (#not-under-context? @finding autocast)
  (#from-context? @_args autocast))
