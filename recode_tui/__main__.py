from recode_tui.cli import main

raise SystemExit(main())
