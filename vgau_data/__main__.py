from vgau_data.cli import main

raise SystemExit(main())
