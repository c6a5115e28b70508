; TL105 distributed-load-without-map-location
; torch.load(path) with no map_location (keyword, second positional
; argument, or a **kwargs that may hold it) whose result reaches a
; load_state_dict(...), in a file that runs distributed training: every
; process builds the checkpoint on the device it was saved from. Not on
; rank 0 only, not for a file this file saved from host memory, not where
; the other arm of an if / else loads with a map_location (the author
; chose it per branch).
((call
  arguments: (argument_list) @_args) @finding
  (#api? @finding torch-load)
  (#not-passes-argument? @finding map_location)
  (#not-other-arm-passes? @finding map_location)
  (#distributed-file? @finding)
  (#load-feeds-state? @finding)
  (#not-rank-zero-only? @finding)
  (#not-loads-host-copy? @finding))
