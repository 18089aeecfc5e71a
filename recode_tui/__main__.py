from recode_tui.commands.cli import main

raise SystemExit(main())
