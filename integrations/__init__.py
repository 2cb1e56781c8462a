"""codeopt as the reward and metrics service of other trainers: TRL (trl.py) and verl
(verl.py), both through runs/client.py. No Django: these run on the trainer's host."""
