"""Loop-backs: everything the layered engine does for reversed edges (declared loop-backs
and the feedback set cycle breaking reverses), step by step through the pipeline.

1. ordering sees each reversed edge through two *corridor anchors*, the runs out of its
   lower node and back into its upper node (:mod:`.anchors`), and counts their crossings
   and plans a corridor side per edge (:mod:`.costs`);
2. the ``loop-back lanes`` step (:mod:`.lanes`) gives the loop-backs whose corridors cost
   crossings a lane, a dummy chain between the columns, put beside its loop's column in
   the order in hand (:mod:`.lane_start`), and refines that order; each lane is then
   shifted sideways as a whole (:mod:`.lane_shift`); what it compares between drawings
   is :mod:`.lane_drawing`'s;
3. placement puts their runs at the ends of their nodes' faces (:mod:`.ports`);
4. routing assigns every corridor its side and line beside the drawing
   (:mod:`.corridors`) and splits each reversed edge into legs (:mod:`.legs`).

The package has no imports of its own, so ordering, placement and routing can each use
the module they need.
"""
