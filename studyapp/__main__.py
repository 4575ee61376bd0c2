from studyapp.cli import main

raise SystemExit(main())
