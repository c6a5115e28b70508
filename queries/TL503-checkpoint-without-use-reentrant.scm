; TL503 checkpoint-without-use-reentrant
; torch.utils.checkpoint.checkpoint / checkpoint_sequential without an
; explicit use_reentrant= (a **kwargs splat may carry it: not reported).
((call
  arguments: (argument_list) @_args) @finding
  (#api? @finding activation-checkpoint)
  (#not-passes-keyword? @finding use_reentrant))
