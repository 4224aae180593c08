/** Project milestones (owner writes, public reads with `lang` overlays) and their machine translations. */
export { MILESTONE_TRANSLATION_QUEUE } from './milestones.service';
