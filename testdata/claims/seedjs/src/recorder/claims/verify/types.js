export const STANDING_VALUES = Object.freeze(['fact', 'open', 'ruled-out', 'noise']);
