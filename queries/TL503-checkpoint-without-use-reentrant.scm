; TL503 checkpoint-without-use-reentrant
; torch.utils.checkpoint.checkpoint / checkpoint_sequential without an
; explicit use_reentrant= (a **kwargs splat may carry it: not reported), but
; not in a fallback branch for a PyTorch older than the target, which may
; not know the keyword.
((call
  arguments: (argument_list) @_args) @finding
  (#api? @finding activation-checkpoint)
  (#not-passes-keyword? @finding use_reentrant)
  (#not-old-torch-only? @finding))
